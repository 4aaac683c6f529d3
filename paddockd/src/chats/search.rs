//! `search`: the request, over the projects it names (every project by default); the word
//! index and the reading of transcripts are `crate::search`.

use std::collections::HashMap;
use std::path::PathBuf;

use paddock_proto::{ErrorBody, SearchRequest, SearchResults};

use super::ChatService;
use crate::projects::project_error;
use crate::search::Scope;

/// `search`.
pub async fn search(d: &ChatService, r: SearchRequest) -> Result<SearchResults, ErrorBody> {
    // Someone waits for it: the index build steps aside meanwhile.
    let _serving = d.state.search.serving();
    // Every chat is listed (the start-up indexing is done) and the search index is open.
    let index = d.state.listed().await;
    let asked = crate::search::ask(&d.state.search, &r).await?;
    let projects = match &r.project_slug {
        Some(slug) => vec![d.project(slug).await?],
        None => d.projects.list().map_err(project_error)?,
    };
    let folders: HashMap<PathBuf, String> = projects
        .iter()
        .map(|p| (d.state.folder_of(p), p.slug.clone()))
        .collect();
    let scope = Scope {
        folders,
        archived: d.state.stores.archive.all(),
        include_archived: r.archived,
    };
    crate::search::run(&d.state.search, index, asked, &scope, r.query).await
}
