//! `paddock search`: full-text search across every chat.

use std::io::IsTerminal as _;

use paddock_proto::SearchRequest;

use super::Context;
use super::output::{eprint, print_json, print_styled};
use crate::cli::SearchArgs;
use crate::format::{self, Highlight};

pub async fn run(ctx: &Context, args: SearchArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let request = SearchRequest {
        query: args.query.join(" "),
        project_slug: args.project,
        limit: args.limit,
        archived: args.archived,
    };
    let results = client.call(request).await?;
    if args.json {
        return print_json(&results);
    }
    let style = Highlight::for_stdout(
        std::io::stdout().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    );
    if !results.hits.is_empty() {
        print_styled(&format::search_results(
            &results,
            &chrono::Local::now(),
            style,
            format::IdForm::for_stdout(),
        ))?;
    }
    eprint(&format::search_notes(&results));
    Ok(())
}
