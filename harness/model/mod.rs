//! Plain data handed from stage to stage: no GPU, no files, no processes. It imports nothing of the
//! crate, so any stage can take it without importing a stage above its own.
//!
//! | module | what |
//! |---|---|
//! | `device` | [`DeviceFacts`], recorded with every result, and its [`gpu_key`] |
//! | `result` | the parts of a case's result the GPU stages hand on: [`StopReason`], [`LaunchResources`] |

mod device;
mod result;

pub use device::{DeviceFacts, gpu_key};
pub use result::{LaunchResources, StopReason};
