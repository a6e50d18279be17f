//! Plain data handed from stage to stage: no GPU, no files, no processes. It imports nothing of the
//! crate, so any stage can take it without importing a stage above its own.
//!
//! | module | what |
//! |---|---|
//! | `ceiling` | the measured [`Ceilings`] of a GPU ([`Ceiling`], [`Measured`]) and a trial's [`Bound`] |
//! | `device` | [`DeviceFacts`], recorded with every result, and its [`gpu_key`] |
//! | `measurement` | what the diff report compares: [`Measurement`] rows of a [`Side`], [`Trend`]s of [`TrendPoint`]s, the [`TIME_METRIC`] |
//! | `result` | the parts of a case's result the GPU stages hand on: [`StopReason`], [`LaunchResources`] |

mod ceiling;
mod device;
mod measurement;
mod result;

pub use ceiling::{Bound, Ceiling, Ceilings, Measured};
pub use device::{DeviceFacts, fp32_lanes_per_sm, gpu_key};
pub use measurement::{Measurement, Paired, Side, TIME_METRIC, Trend, TrendPoint};
pub use result::{LaunchResources, StopReason};
