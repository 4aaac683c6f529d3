//! `paddock ls-files [-p SLUG] [PATH]`: one directory of a project's directory.

use paddock_proto::FilesList;

use super::Context;
use super::output::{print, print_json};
use crate::cli::LsFilesArgs;
use crate::format;

pub async fn run(ctx: &Context, args: LsFilesArgs) -> anyhow::Result<()> {
    let request = FilesList {
        project_slug: args.project.unwrap_or_default(),
        path: args.path.unwrap_or_default(),
        hidden: args.all,
        limit: args.limit,
    };
    let client = ctx.connect().await?;
    let listing = client.call(request).await?;
    if args.json {
        return print_json(&listing);
    }
    print(&format::file_listing(&listing))
}
