//! Buffers the event loop reuses from event to event, so that planning a
//! request and handing on finished operations allocate nothing once they
//! have grown to the run's largest request.
//!
//! Each is taken (`std::mem::take`) by the code that fills it and put back
//! when it is done, which lets that code call `&mut self` methods between;
//! none holds anything from one event to the next except `bg`, which the
//! scheme fills while planning and `background.rs` drains right after.

use crate::ftl::mapping::Access;
use crate::schemes::Plan;
use crate::types::Token;

#[derive(Default)]
pub(super) struct Scratch {
    /// The plan being filled for a host request, a flush or GC.
    pub plan: Plan,
    /// A second plan, for what is planned while `plan` is taken: a page
    /// placed on its first read, a translation write-back.
    pub scratch_plan: Plan,
    /// Background plans the scheme submitted through `Ctx::background`.
    pub bg: Vec<Plan>,
    /// A write's page tokens.
    pub tokens: Vec<Token>,
    /// Indices or pages: a plan's operations in launch order, GC's pages.
    pub ids: Vec<u32>,
    /// A request's translation pages and what their lookups found.
    pub lookups: Vec<(u32, Access)>,
    /// The operations a die kick finished, swapped out of the scheduler.
    pub done: Vec<u32>,
    /// Pages the scheduler skipped to pull planes level, (plane, pages).
    pub skipped: Vec<(u32, u32)>,
    /// LPNs of programs the scheduler dispatched (`ftl.read_merge`).
    pub started: Vec<u32>,
}
