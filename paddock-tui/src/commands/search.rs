//! `paddock search`: full-text search across every chat.

use std::io::IsTerminal as _;

use paddock_proto::{Reply, Request, SearchRequest};

use super::output::{eprint, print, print_json};
use super::{Context, unexpected};
use crate::cli::SearchArgs;
use crate::format::{self, Highlight};

pub async fn run(ctx: &Context, args: SearchArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let request = Request::Search(SearchRequest {
        query: args.query.join(" "),
        project_slug: args.project,
        limit: args.limit,
        archived: args.archived,
    });
    let results = match client.request(request).await? {
        Reply::SearchResults(results) => results,
        other => return Err(unexpected("search", &other)),
    };
    if args.json {
        return print_json(&results);
    }
    let style = Highlight::for_stdout(
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    );
    if !results.hits.is_empty() {
        print(&format::search_results(
            &results,
            &chrono::Local::now(),
            style,
        ))?;
    }
    eprint(&format::search_notes(&results));
    Ok(())
}
