//! `paddock provenance FILE`: which chat produced a file, from what, and whether it still is
//! what that chat wrote; `paddock blame FILE`: which chat and turn last wrote each line;
//! `paddock files SESSION`: the files a chat read and wrote, turn by turn.

use std::path::Path;

use paddock_proto::{ProvenanceBlame, ProvenanceFile, ProvenanceTouched};

use super::Context;
use super::output::{print, print_json};
use crate::cli::{BlameArgs, FilesArgs, ProvenanceArgs};
use crate::format;

/// The request's file: with -p the path is the project's own; without, it is this shell's,
/// made absolute so the daemon can find the project holding it (under `--remote`, it must be
/// absolute on the far side already).
fn file_request(
    ctx: &Context,
    project: Option<&str>,
    file: &Path,
) -> anyhow::Result<ProvenanceFile> {
    let path = if project.is_some() {
        file.to_path_buf()
    } else {
        ctx.daemon_path(
            file,
            "FILE",
            ", or name its project with -p and give FILE relative to the project's directory",
        )?
    };
    Ok(ProvenanceFile {
        project_slug: project.map(str::to_owned),
        path: path.to_string_lossy().into_owned(),
    })
}

pub async fn run(ctx: &Context, args: ProvenanceArgs) -> anyhow::Result<()> {
    let request = file_request(ctx, args.project.as_deref(), &args.file)?;
    let client = ctx.connect().await?;
    let provenance = client.call(request).await?;
    if args.json {
        return print_json(&provenance);
    }
    print(&format::provenance(&provenance, &chrono::Local::now()))
}

pub async fn blame(ctx: &Context, args: BlameArgs) -> anyhow::Result<()> {
    let request = ProvenanceBlame(file_request(ctx, args.project.as_deref(), &args.file)?);
    let client = ctx.connect().await?;
    let blame = client.call(request).await?;
    if args.json {
        return print_json(&blame);
    }
    print(&format::blame(&blame))
}

pub async fn files(ctx: &Context, args: FilesArgs) -> anyhow::Result<()> {
    let client = ctx.connect().await?;
    let project_slug = match args.project {
        Some(p) => p,
        None => super::git::chat_project(&client, &args.session).await?,
    };
    let request = ProvenanceTouched {
        project_slug,
        session_id: args.session,
        job_id: args.turn,
    };
    let touched = client.call(request).await?;
    if args.json {
        return print_json(&touched);
    }
    print(&format::touched(&touched, &chrono::Local::now()))
}
