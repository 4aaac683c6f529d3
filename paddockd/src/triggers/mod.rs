//! Schedules and hooks (being built).

use paddock_proto::{
    ErrorBody, ErrorCode, Fired, TriggerFire, TriggerInfo, TriggerList, TriggerRef, TriggerSet,
    Triggers,
};

use crate::daemon::Daemon;

fn not_yet() -> ErrorBody {
    ErrorBody::new(ErrorCode::Internal, "triggers are being built")
}

pub async fn list(_d: &Daemon, _r: TriggerList) -> Result<Triggers, ErrorBody> {
    Err(not_yet())
}

pub async fn set(_d: &Daemon, _r: TriggerSet) -> Result<TriggerInfo, ErrorBody> {
    Err(not_yet())
}

pub async fn remove(_d: &Daemon, _r: TriggerRef) -> Result<(), ErrorBody> {
    Err(not_yet())
}

pub async fn fire(_d: &Daemon, _r: TriggerFire) -> Result<Fired, ErrorBody> {
    Err(not_yet())
}
