//! History stage: where a run's code came from, and the runs kept per GPU key (issue 9).
//!
//! - [`provenance`]: the git state of a tree (read by `build.rs` and at run time);
//! - [`built`]: the state built into this binary, and the one a run is recorded under.

pub mod built;
pub mod provenance;
