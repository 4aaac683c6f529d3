//! `paddock import`: adopt a directory's terminal `claude` sessions as chats.

use paddock_proto::ChatImport;

use super::Context;
use super::output::{print, print_json};
use crate::cli::ImportArgs;
use crate::format::{self, ROOT_SLUG};

pub async fn run(ctx: &Context, args: ImportArgs) -> anyhow::Result<()> {
    // The daemon runs elsewhere: a relative DIR means relative to where the user typed it.
    let path = args
        .path
        .map(|p| ctx.daemon_path(&p, "--path", ""))
        .transpose()?
        .map(|p| p.to_string_lossy().into_owned());
    let client = ctx.connect().await?;
    let request = ChatImport {
        project_slug: args.project.unwrap_or_else(|| ROOT_SLUG.to_owned()),
        path,
        dry_run: args.dry_run,
    };
    match client.call(request).await? {
        imported if args.json => print_json(&imported),
        imported => print(&format::import_summary(&imported)),
    }
}
