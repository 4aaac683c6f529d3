//! `paddock ls-files [-p SLUG] [PATH]`: one directory of a project's directory.

use paddock_proto::{FilesList, Reply, Request};

use super::output::{print, print_json};
use super::{Context, unexpected};
use crate::cli::LsFilesArgs;
use crate::format;

pub async fn run(ctx: &Context, args: LsFilesArgs) -> anyhow::Result<()> {
    let request = Request::FilesList(FilesList {
        project_slug: args.project.unwrap_or_default(),
        path: args.path.unwrap_or_default(),
        hidden: args.all,
        limit: args.limit,
    });
    let client = ctx.connect().await?;
    let listing = match client.request(request).await? {
        Reply::FileListing(l) => l,
        other => return Err(unexpected("files:list", &other)),
    };
    if args.json {
        return print_json(&listing);
    }
    print(&format::file_listing(&listing))
}
