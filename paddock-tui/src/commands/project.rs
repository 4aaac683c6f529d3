//! `paddock project add|ls|show|set|rm|promote`.

use std::fmt::Write as _;
use std::path::Path;

use paddock_proto::{
    ProjectCreate, ProjectDelete, ProjectDriveMode, ProjectFiles, ProjectInfo, ProjectIsolation,
    ProjectList, ProjectOverview, ProjectOverviewRequest, ProjectPromote, ProjectRef,
    ProjectUpdate,
};

use super::Context;
use super::output::{print, print_json};
use crate::cli::{DriveModeArg, IsolationArg, ProjectCmd, ProjectKey};
use crate::client::Client;
use crate::format::{self, project_label};

pub async fn run(ctx: &Context, action: ProjectCmd) -> anyhow::Result<()> {
    // The daemon runs elsewhere: a relative DIR means relative to where the user typed it.
    let path = match &action {
        ProjectCmd::Add { path: Some(p), .. } => Some(ctx.daemon_path(p, "--path", "")?),
        _ => None,
    };
    let repo = match &action {
        ProjectCmd::Add { repo: Some(r), .. } | ProjectCmd::Promote { repo: r, .. } => {
            Some(repo_arg(ctx, r)?)
        }
        _ => None,
    };
    let client = ctx.connect().await?;
    match action {
        ProjectCmd::Add {
            slug,
            name,
            summary,
            area,
            status,
            ..
        } => {
            let request = ProjectCreate {
                slug,
                path: path.map(|p| p.to_string_lossy().into_owned()),
                repo,
                name,
                summary,
                area,
                status: status.map(Into::into),
            };
            add(&client, request).await
        }
        ProjectCmd::Ls { json } => match client.call(ProjectList).await? {
            p if json => print_json(&p.projects),
            p => print(&format::project_table(&p.projects)),
        },
        ProjectCmd::Show { slug, json } => show_project(&client, slug, json).await,
        ProjectCmd::Set {
            slug,
            name,
            summary,
            area,
            status,
            model,
            drive_mode,
            max_spawn_depth,
            isolation,
            unset,
            allow,
            disallow,
            reach,
            unreach,
        } => {
            let update = ProjectUpdate {
                slug,
                name: setting(name, &unset, ProjectKey::Name),
                summary: setting(summary, &unset, ProjectKey::Summary),
                area: setting(area, &unset, ProjectKey::Area),
                status: setting(status.map(Into::into), &unset, ProjectKey::Status),
                model: setting(model, &unset, ProjectKey::Model),
                drive_mode: setting(drive_mode.map(drive_mode_of), &unset, ProjectKey::DriveMode),
                max_spawn_depth: setting(max_spawn_depth, &unset, ProjectKey::MaxSpawnDepth),
                allow,
                disallow,
                reach,
                unreach,
                isolation: setting(
                    isolation.map(|i| match i {
                        IsolationArg::Worktree => ProjectIsolation::Worktree,
                        IsolationArg::None => ProjectIsolation::None,
                    }),
                    &unset,
                    ProjectKey::Isolation,
                ),
            };
            set(&client, update).await
        }
        ProjectCmd::Rm {
            slug,
            force,
            delete_files,
            trash,
            json,
        } => {
            let files = files_choice(delete_files, trash);
            remove(&client, ProjectDelete { slug, force, files }, json).await
        }
        ProjectCmd::Promote { slug, .. } => promote(&client, slug, repo.unwrap_or_default()).await,
    }
}

/// `paddock project add`: creates the project (cloning its repository first, if it has one)
/// and says where it is.
async fn add(client: &Client, request: ProjectCreate) -> anyhow::Result<()> {
    if let Some(repo) = &request.repo {
        eprintln!("cloning {repo} ...");
    }
    let project = client.call(request).await?;
    print(&format!(
        "project {} at {}{}\n",
        project_label(&project.slug),
        project.path,
        project
            .repo
            .as_deref()
            .map(|r| format!(" (cloned from {r})"))
            .unwrap_or_default()
    ))
}

/// `paddock project show`: the project's overview, as text or as JSON.
async fn show_project(client: &Client, slug: String, json: bool) -> anyhow::Result<()> {
    match client
        .call(ProjectOverviewRequest(ProjectRef { slug }))
        .await?
    {
        o if json => print_json(&o),
        o => print(&show(&o)),
    }
}

/// What `project set` does to one setting: the value given, cleared (`Some(None)`) when
/// `--unset` names its key, else left as it is (`None`).
fn setting<T>(value: Option<T>, unset: &[ProjectKey], key: ProjectKey) -> Option<Option<T>> {
    match value {
        Some(v) => Some(Some(v)),
        None if unset.contains(&key) => Some(None),
        None => None,
    }
}

/// The drive mode `--drive-mode` names, as the daemon takes it.
fn drive_mode_of(arg: DriveModeArg) -> ProjectDriveMode {
    match arg {
        DriveModeArg::Session => ProjectDriveMode::Session,
        DriveModeArg::Batch => ProjectDriveMode::Batch,
    }
}

/// `paddock project set`: refuses an update that changes nothing, else makes it and prints the
/// project's settings as they are now.
async fn set(client: &Client, update: ProjectUpdate) -> anyhow::Result<()> {
    let nothing = ProjectUpdate {
        slug: update.slug.clone(),
        ..Default::default()
    };
    if update == nothing {
        return Err(super::Failure::new(
            2,
            "nothing to change: give a setting (e.g. --summary TEXT), --unset KEY or --disallow RULE; `paddock project set --help` lists them",
        )
        .into());
    }
    let p = client.call(update).await?;
    print(&settings(&p))
}

/// What `project rm` does with the project's files: deletes them, moves them to the trash, or
/// leaves them.
fn files_choice(delete_files: bool, trash: bool) -> Option<ProjectFiles> {
    if delete_files {
        Some(ProjectFiles::Delete)
    } else if trash {
        Some(ProjectFiles::Trash)
    } else {
        None
    }
}

/// `paddock project rm`: removes the project and says what was done, as text or as JSON.
async fn remove(client: &Client, request: ProjectDelete, json: bool) -> anyhow::Result<()> {
    match client.call(request).await? {
        d if json => print_json(&d),
        d => {
            let mut out = format!("project {} removed\n", d.slug);
            for line in &d.done {
                let _ = writeln!(out, "  {line}");
            }
            print(&out)
        }
    }
}

/// `paddock project promote`: clones `repo` for the project and says where its agents work now.
async fn promote(client: &Client, slug: String, repo: String) -> anyhow::Result<()> {
    eprintln!("cloning {repo} ...");
    let p = client.call(ProjectPromote { slug, repo }).await?;
    print(&format!(
        "project {} is repo-backed: its agents work in {}{}\n",
        project_label(&p.slug),
        p.path,
        p.repo
            .as_deref()
            .map(|r| format!(" (cloned from {r})"))
            .unwrap_or_default()
    ))
}

/// `--repo` as the daemon should get it: a URL as it is; a path on this machine made absolute
/// (a relative one is this shell's), as for `--path`.
fn repo_arg(ctx: &Context, repo: &str) -> anyhow::Result<String> {
    let url_like = repo.contains("://") || (repo.starts_with("git@") && repo.contains(':'));
    if url_like || repo.starts_with('/') {
        return Ok(repo.to_owned());
    }
    Ok(ctx
        .daemon_path(Path::new(repo), "--repo", "")?
        .to_string_lossy()
        .into_owned())
}

/// A project's settings, one per line (those set).
fn settings(p: &ProjectInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}{}",
        project_label(&p.slug),
        p.name
            .as_deref()
            .map(|n| format!(" — {n}"))
            .unwrap_or_default()
    );
    let mut line = |key: &str, value: Option<String>| {
        if let Some(v) = value {
            let _ = writeln!(out, "  {key:<16}{v}");
        }
    };
    line("path", Some(p.path.clone()));
    line(
        "refused",
        p.shadowed_by.as_deref().map(|owner| {
            format!(
                "{} runs in this directory, and a directory belongs to one project: {} shows no chats and runs no turns; give it another `path` in its project.toml and restart paddockd, or remove it (`paddock project rm {}` leaves {}'s chats alone)",
                if owner.is_empty() { "the root workspace".to_owned() } else { format!("project {owner}") },
                project_label(&p.slug),
                p.slug,
                project_label(owner),
            )
        }),
    );
    line("repo", p.repo.clone());
    line("summary", p.summary.clone());
    line("area", p.area.clone());
    line("status", p.status.map(|s| s.as_str().to_owned()));
    line("model", p.model.clone());
    line(
        "drive mode",
        p.drive_mode.map(|m| {
            match m {
                ProjectDriveMode::Session => "session",
                ProjectDriveMode::Batch => "batch",
            }
            .to_owned()
        }),
    );
    line("max spawn depth", p.max_spawn_depth.map(|n| n.to_string()));
    line(
        "isolation",
        p.isolation.map(|i| {
            match i {
                ProjectIsolation::Worktree => {
                    "worktree (each new chat in a git worktree of its own)"
                }
                ProjectIsolation::None => "none",
            }
            .to_owned()
        }),
    );
    // The project's tool rules, one a line, as `--disallow` takes them.
    for (i, rule) in p.allowed_tools.iter().enumerate() {
        line(
            if i == 0 { "allowed tools" } else { "" },
            Some(rule.clone()),
        );
    }
    // The projects its chats' tools may act on besides it, as `--unreach` takes them.
    if !p.reach.is_empty() {
        line(
            "reaches",
            Some(
                p.reach
                    .iter()
                    .map(|s| match s.as_str() {
                        "" => "'' (root)".to_owned(),
                        "*" => "* (every project)".to_owned(),
                        s => s.to_owned(),
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            ),
        );
    }
    out
}

/// `paddock project show`.
fn show(o: &ProjectOverview) -> String {
    let mut out = settings(&o.project);
    let _ = writeln!(
        out,
        "  {:<16}{} ({} running, {} unread)",
        "chats", o.chats, o.running, o.unread
    );
    match (&o.swept_at, &o.sweep_error) {
        (Some(at), Some(why)) => {
            let _ = writeln!(out, "  {:<16}failed {at}: {why}", "sweep");
        }
        (None, Some(why)) => {
            let _ = writeln!(out, "  {:<16}failed: {why}", "sweep");
        }
        (Some(at), None) => {
            let _ = writeln!(out, "  {:<16}{at}", "curated");
        }
        (None, None) => {}
    }
    let mut file = |name: &str, text: &Option<String>, cut: bool, cut_note: &str| {
        let _ = writeln!(
            out,
            "\n── {name} {}",
            "─".repeat(60usize.saturating_sub(name.len()))
        );
        match text {
            Some(t) => {
                out.push_str(t.trim_end());
                out.push('\n');
                if cut {
                    let _ = writeln!(out, "({cut_note})");
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "(none yet: the sweeper writes it after your turns in this project)"
                );
            }
        }
    };
    file(
        "OVERVIEW.md",
        &o.overview,
        o.overview_truncated,
        "cut at 64 KiB; the whole file is in the project's data folder",
    );
    file(
        "CHANGELOG.md",
        &o.changelog,
        o.changelog_truncated,
        "older entries left out; the whole file is in the project's data folder",
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_project_says_whose_directory_it_is_in_ls_and_show() {
        let p = ProjectInfo {
            slug: "web2".into(),
            path: "/src/web".into(),
            shadowed_by: Some("web".into()),
            ..ProjectInfo::default()
        };
        assert!(settings(&p).contains(
            "  refused         project web runs in this directory, and a directory belongs to one project: web2 shows no chats"
        ));
        let table = crate::format::project_table(&[p]);
        assert!(
            table.contains(
                "web2     /src/web  (refused: web's directory; see `paddock project show web2`)"
            ),
            "{table}"
        );
    }

    #[test]
    fn show_says_a_failed_sweep_failed_and_why() {
        let mut o = ProjectOverview {
            swept_at: Some("2026-11-03T18:35:00Z".into()),
            ..ProjectOverview::default()
        };
        assert!(show(&o).contains("curated         2026-11-03T18:35:00Z"));
        o.sweep_error = Some("the marker <<<OVERVIEW>>> is missing".into());
        let text = show(&o);
        assert!(
            text.contains(
                "sweep           failed 2026-11-03T18:35:00Z: the marker <<<OVERVIEW>>> is missing"
            ),
            "{text}"
        );
        assert!(!text.contains("curated"), "{text}");
    }
}
