//! `paddock project add|ls`.

use paddock_proto::{ProjectCreate, Reply, Request};

use super::output::{print, print_json};
use super::{Context, unexpected};
use crate::cli::ProjectCmd;
use crate::format::{self, project_label};

pub async fn run(ctx: &Context, action: ProjectCmd) -> anyhow::Result<()> {
    // The daemon runs elsewhere: a relative DIR means relative to where the user typed it.
    let path = match &action {
        ProjectCmd::Add { path: Some(p), .. } => Some(ctx.daemon_path(p, "--path", "")?),
        _ => None,
    };
    let client = ctx.connect().await?;
    match action {
        ProjectCmd::Add { slug, .. } => {
            let path = path.map(|p| p.to_string_lossy().into_owned());
            match client
                .request(Request::ProjectCreate(ProjectCreate {
                    slug,
                    path,
                    ..Default::default()
                }))
                .await?
            {
                Reply::Project(project) => print(&format!(
                    "project {} at {}\n",
                    project_label(&project.slug),
                    project.path
                )),
                other => Err(unexpected("project:create", &other)),
            }
        }
        ProjectCmd::Ls { json } => match client.request(Request::ProjectList).await? {
            Reply::Projects(p) if json => print_json(&p.projects),
            Reply::Projects(p) => print(&format::project_table(&p.projects)),
            other => Err(unexpected("project:list", &other)),
        },
    }
}
