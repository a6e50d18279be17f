//! Plain data handed from stage to stage: no GPU, no files, no processes. It imports nothing of the
//! crate, so any stage can take it without importing a stage above its own.
//!
//! | module | what |
//! |---|---|
//! | `ceiling` | the measured [`Ceilings`] of a GPU ([`Ceiling`], [`Measured`]) and a trial's [`Bound`] |
//! | `device` | [`DeviceFacts`], recorded with every result, and its [`gpu_key`] |
//! | `git` | the [`GitState`] a run is recorded under, its [`RepoState`], and [`kernels_sha256`], the hash naming a set of kernel files |
//! | `measurement` | what the diff report compares: [`Measurement`] rows of a [`Side`], [`Trend`]s of [`TrendPoint`]s, the [`TIME_STATISTIC`] |
//! | `result` | the parts of a case's result the GPU stages hand on: [`StopReason`], [`LaunchResources`], [`MAX_THROTTLED_FRACTION`] |

mod ceiling;
mod device;
mod measurement;
mod result;

pub use ceiling::{Bound, Ceiling, Ceilings, Measured};
pub use device::{DeviceFacts, fp32_lanes_per_sm, gpu_key};
pub use kernelgate_build::git::{GitState, RepoState, folder_in_repository, kernels_sha256};
pub use measurement::{Measurement, Paired, Side, TIME_STATISTIC, Trend, TrendPoint, VendorReference};
pub use result::{LaunchResources, MAX_THROTTLED_FRACTION, StopReason};
