//! NVMe arbitration settings (`scheduler.arbitration`, `[[flows]]
//! priority`): plain data here; `scheduler::arbiter` serves them.

use crate::ensure_config;
use crate::error::Result;
use serde::{Deserialize, Serialize};

/// How a unit chooses among the classes of its queued host operations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    /// Classes ignored: the policy's pick stands (default).
    #[default]
    Fifo,
    /// URGENT first, then weighted round robin over HIGH/MEDIUM/LOW
    /// (MQSim's PRIORITY_OUT_OF_ORDER TSU).
    NvmeWrr,
}

/// An NVMe submission queue's priority class (MQSim's
/// IO_Flow_Priority_Class, Host_Interface_NVMe_Priorities.h).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PriorityClass {
    Urgent = 0,
    /// Default: what MQSim gives transactions of no class.
    #[default]
    High = 1,
    Medium = 2,
    Low = 3,
}

/// Checks `scheduler.wrr_weights` (HIGH, MEDIUM, LOW): each at least 1
/// and none above the one before (MQSim's rule serves a class when its
/// weight reaches the current weight, which counts down from HIGH's).
pub fn validate_weights(w: &[u32; 3]) -> Result<()> {
    ensure_config!(
        w[2] >= 1 && w[1] >= w[2] && w[0] >= w[1] && w[0] <= 1 << 16,
        "scheduler.wrr_weights",
        "{w:?}: need HIGH >= MEDIUM >= LOW >= 1 and HIGH <= 65536"
    );
    Ok(())
}
