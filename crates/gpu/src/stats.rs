//! What the device did in this session, for `:device`.

use std::time::Duration;

#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Programs built from OpenCL C.
    pub compiled: u64,
    /// Programs loaded from the disk cache of binaries.
    pub disk_hits: u64,
    /// Programs found in memory (by their text).
    pub cache_hits: u64,
    pub build_time: Duration,
    pub launches: u64,
    pub bytes_to_device: u64,
    pub bytes_from_device: u64,
    /// Wall time of the regions run on the device, from their first
    /// command to the completion of their last (building not counted).
    pub device_time: Duration,
    /// Statements run on the device.
    pub offloaded: u64,
    /// Offloadable regions kept on the evaluator as too small.
    pub below_threshold: u64,
    /// Regions kept on the evaluator because they ran faster there.
    pub faster_on_host: u64,
    /// Offloads that failed and fell back to the evaluator.
    pub fallbacks: u64,
}
