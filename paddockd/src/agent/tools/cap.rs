//! The per-tree caps on a chat's calls (`tree_caps.rs`): `create_chat` and `fork_chat` count
//! a chat created, and every call that starts a turn counts a machine-started turn, against
//! the tree of the calling chat's turn (`lineage.rs`). Past a cap the call waits in the
//! approvals inbox (`paused_calls.rs`) until a person lifts the cap or denies the call.

use paddock_proto::Origin;
use serde_json::Value;

use crate::agent::{Identity, MANAGE_SERVER};
use crate::handles::Daemon;
use crate::lineage::Lineage;
use crate::paused_calls::{Call, Pauser};
use crate::tree_caps::{Counted, Limits};

/// `Ok` when chat `who`'s call `tool` (acting at `lineage`) may run now: within its tree's
/// caps, or a person allowed it; else what the model is told.
pub(super) async fn admit(
    d: &Daemon,
    who: &Identity,
    lineage: &Lineage,
    counted: &[Counted],
    tool: &str,
    args: &Value,
) -> Result<(), String> {
    let project = d.project(&who.project_slug).await.map_err(|e| e.message)?;
    let prov = d.state.stores.run_provenance.get(&who.session_id);
    let call = Call {
        tree: &lineage.tree,
        counted,
        limits: Limits::of(&d.cfg, &project),
        project_slug: who.project_slug.clone(),
        session_id: who.session_id.clone(),
        job_id: d
            .state
            .lineages
            .get(&who.session_id)
            .map(|t| t.job_id)
            .unwrap_or_default(),
        title: d.state.title_now(&who.session_id).unwrap_or_default(),
        origin: prov.map_or(Origin::Human, |p| p.origin),
        depth: lineage.depth,
        tool: format!("mcp__{MANAGE_SERVER}__{tool}"),
        input: args.clone(),
    };
    let pauser = Pauser {
        caps: &d.state.caps,
        approvals: &d.state.approvals,
        hub: &d.hub,
        wait: d.cfg.approval_timeout,
    };
    crate::paused_calls::admit(pauser, call).await
}
