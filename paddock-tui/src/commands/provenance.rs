//! `paddock provenance FILE`: which chat produced a file, from what, and whether it still is
//! what that chat wrote.

use anyhow::Context as _;
use paddock_proto::{ProvenanceFile, Reply, Request};

use super::output::{print, print_json};
use super::{Context, unexpected};
use crate::cli::ProvenanceArgs;
use crate::format;

pub async fn run(ctx: &Context, args: ProvenanceArgs) -> anyhow::Result<()> {
    // With -p the path is the project's own; without, it is this shell's, made absolute so
    // the daemon can find the project holding it.
    let path = if args.project.is_some() || args.file.is_absolute() {
        args.file.clone()
    } else {
        std::env::current_dir()
            .context("cannot read the current directory")?
            .join(&args.file)
    };
    let client = ctx.connect().await?;
    let request = Request::ProvenanceFile(ProvenanceFile {
        project_slug: args.project.clone(),
        path: path.to_string_lossy().into_owned(),
    });
    let provenance = match client.request(request).await? {
        Reply::Provenance(p) => p,
        other => return Err(unexpected("provenance:file", &other)),
    };
    if args.json {
        return print_json(&provenance);
    }
    print(&format::provenance(&provenance, &chrono::Local::now()))
}
