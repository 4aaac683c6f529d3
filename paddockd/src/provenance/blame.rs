//! `provenance:blame`: which chat and turn last wrote each region of a file.

use paddock_proto::{Blame, ErrorBody, ErrorCode, ProvenanceFile};

/// `provenance:blame`.
pub async fn blame(d: &crate::daemon::Daemon, r: ProvenanceFile) -> Result<Blame, ErrorBody> {
    let (_project, rel) = super::resolve_file(d, &r)?;
    Err(ErrorBody::new(
        ErrorCode::Internal,
        format!("blame of {rel}: not built yet"),
    ))
}
