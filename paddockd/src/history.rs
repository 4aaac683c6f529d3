//! Run history (being built).

use paddock_proto::{ErrorBody, ErrorCode, History, HistoryList};

use crate::daemon::Daemon;

pub async fn list(_d: &Daemon, _user: &str, _h: HistoryList) -> Result<History, ErrorBody> {
    Err(ErrorBody::new(
        ErrorCode::Internal,
        "this request is being built",
    ))
}

pub async fn seen(_d: &Daemon, _user: &str) -> Result<(), ErrorBody> {
    Err(ErrorBody::new(
        ErrorCode::Internal,
        "this request is being built",
    ))
}
