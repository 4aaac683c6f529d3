//! Full-text search across every chat: a word index of the transcripts, kept current as they
//! grow.

use paddock_proto::{ErrorBody, ErrorCode, SearchRequest, SearchResults};

/// `search`.
pub async fn search(
    _d: &crate::daemon::Daemon,
    r: SearchRequest,
) -> Result<SearchResults, ErrorBody> {
    Err(ErrorBody::new(
        ErrorCode::Internal,
        format!("search for {:?}: the index is not built yet", r.query),
    ))
}
