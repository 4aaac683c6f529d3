//! Where things live: the projects' folders in the data directory, paddockd's own state that
//! no request reads, and the folders whose free space counts.

use std::path::{Path, PathBuf};

use super::{Config, management, ws};
use crate::chat_links::TranscriptMode;

/// Where the projects' folders live in the data directory.
pub fn projects_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("projects")
}

/// Where paddockd keeps the git worktrees of worktree chats (`worktrees.rs`), one folder per
/// project.
pub fn worktrees_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("worktrees")
}

/// The root workspace's folder in the data directory.
pub fn workspace_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("workspace")
}

impl Config {
    /// paddockd's own state, which no request or tool reads (`confine.rs`).
    pub fn private_state(&self) -> crate::confine::Private {
        let cfg = self;
        let mut roots = vec![
            cfg.data_dir.clone(),
            cfg.claude_home.clone(),
            cfg.log.clone(),
            // The socket's folder holds the socket and its lock (`listener.rs`); the folder
            // itself may be a shared one the user named.
            cfg.socket.clone(),
            cfg.socket.with_extension("lock"),
            cfg.ws
                .token_file
                .clone()
                .unwrap_or_else(|| cfg.data_dir.join(ws::TOKEN_FILE)),
        ];
        roots.extend(cfg.config_file.clone());
        for token in cfg.management.clients.values() {
            if let management::ClientToken::File(path) = token {
                roots.push(path.clone());
            }
        }
        // In the data directory, only the projects' agents' folders are open (and the
        // worktrees chats work in): a project's metadata folder (project.toml, its
        // transcripts, provenance) is paddockd's.
        crate::confine::Private::new(roots, vec![worktrees_dir(&cfg.data_dir)]).with_agent_folders(
            vec![projects_dir(&cfg.data_dir)],
            vec![workspace_dir(&cfg.data_dir)],
        )
    }

    /// The folders paddockd and its agents write to: the data folder, the Claude home, and the
    /// user's own Claude home in host mode (where the transcripts are then).
    pub fn written_folders(&self) -> Vec<PathBuf> {
        let mut out = vec![self.data_dir.clone(), self.claude_home.clone()];
        if self.transcripts == TranscriptMode::Host {
            out.push(self.host_claude_home.clone());
        }
        out
    }
}
