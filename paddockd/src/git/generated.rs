//! The automatic commits in the data directory's repository: the sweeper's generated files
//! and a project's transcripts.

use std::path::{Path, PathBuf};

use paddock_proto::ErrorBody;

use crate::projects::Project;

use super::{Git, Identity, commit_paths, committable_branch, label};

/// After a sweep wrote `wrote` (file names in the project's metadata folder): when the data
/// directory is the top of a git repository, commits OVERVIEW.md and CHANGELOG.md there, those
/// paths only. Never fails the sweep: problems are logged.
pub async fn commit_generated(
    data_dir: &Path,
    identity: &Identity,
    project: &Project,
    wrote: &[&str],
) {
    let files: Vec<PathBuf> = wrote
        .iter()
        .filter(|f| {
            [
                crate::config::curation::OVERVIEW_FILE,
                crate::config::curation::CHANGELOG_FILE,
            ]
            .contains(f)
        })
        .map(|f| project.meta_dir.join(f))
        .collect();
    let message = format!("paddock: curate {}", label(&project.slug));
    let files = MetaFiles {
        files,
        message,
        what: "the curated files",
    };
    commit_meta_files(data_dir, identity, &project.slug, files).await;
}

/// Commits a project's `.chats` (its transcripts: the folder in own mode, the link in host
/// mode) in the data directory's repository, if it is one of its own and they changed.
pub async fn commit_chats(data_dir: &Path, identity: &Identity, project: &Project) {
    let files = MetaFiles {
        files: vec![project.meta_dir.join(".chats")],
        message: format!("paddock: save the chats of {}", label(&project.slug)),
        what: "the chats",
    };
    commit_meta_files(data_dir, identity, &project.slug, files).await;
}

/// Generated files of a project to commit, with the commit's message; `what` names them for
/// the log.
pub(super) struct MetaFiles {
    pub(super) files: Vec<PathBuf>,
    pub(super) message: String,
    pub(super) what: &'static str,
}

/// Commits generated files of a project in the data directory's repository; failures are
/// logged, never returned.
pub(super) async fn commit_meta_files(
    data_dir: &Path,
    identity: &Identity,
    slug: &str,
    job: MetaFiles,
) {
    let (data_dir, slug, identity) = (data_dir.to_path_buf(), slug.to_owned(), identity.clone());
    let MetaFiles {
        files,
        message,
        what,
    } = job;
    let done = tokio::task::spawn_blocking(move || {
        let result = commit_generated_blocking(&data_dir, &files, &message, &identity);
        (slug, result)
    })
    .await;
    match done {
        Ok((slug, Ok(Some(commit)))) => {
            tracing::info!(project = %slug, %commit, "committed {what} in the data directory's repository");
        }
        Ok((_, Ok(None))) => {}
        Ok((slug, Err(e))) => {
            tracing::warn!(project = %slug, "cannot commit {what} in the data directory's repository: {}", e.message);
        }
        Err(e) => tracing::warn!("the commit of {what} failed: {e}"),
    }
}

pub(super) fn commit_generated_blocking(
    data_dir: &Path,
    files: &[PathBuf],
    message: &str,
    identity: &Identity,
) -> Result<Option<String>, ErrorBody> {
    let git = Git { dir: data_dir };
    // Only a repository of its own: not one the data directory happens to sit in.
    if git.prefix()?.as_deref() != Some("") {
        return Ok(None);
    }
    let canon = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    let paths: Vec<String> = files
        .iter()
        .filter_map(|f| {
            // The folder resolved, not the file: a symlink (`.chats` in host mode) is
            // committed as the link it is.
            let f = match (f.parent(), f.file_name()) {
                (Some(dir), Some(name)) => std::fs::canonicalize(dir)
                    .map(|d| d.join(name))
                    .unwrap_or_else(|_| f.clone()),
                _ => f.clone(),
            };
            f.strip_prefix(&canon)
                .ok()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .collect();
    if paths.is_empty() {
        return Ok(None);
    }
    committable_branch(&git)?;
    let mut args: Vec<&str> = vec!["status", "--porcelain=v1", "-z", "--"];
    args.extend(paths.iter().map(String::as_str));
    if git.run(&args)?.is_empty() {
        return Ok(None);
    }
    commit_paths(&git, message, &paths, identity).map(Some)
}
