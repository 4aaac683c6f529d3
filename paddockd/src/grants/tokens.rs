//! Per-chat tokens: the secret each `claude` process gets in its MCP configuration, so every
//! call its MCP bridge makes is attributed to that chat and no chat can act as another.
//!
//! Tokens live in memory only: they die with the daemon, as do the processes that hold them.
//! A chat keeps one token while the daemon runs; what the token may do (the self-management
//! tools or not) is decided when the chat's process is spawned and recorded here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// The chat a token speaks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub session_id: String,
    pub project_slug: String,
    /// Whether the chat's current process was given the self-management tools.
    pub manage: bool,
}

#[derive(Debug, Clone, Default)]
pub struct AgentTokens {
    inner: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    by_token: HashMap<String, Identity>,
    by_session: HashMap<String, String>,
}

impl AgentTokens {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The chat's token (made on first use), now granting `manage` or not.
    pub fn issue(&self, session_id: &str, project_slug: &str, manage: bool) -> String {
        let mut state = self.lock();
        let token = match state.by_session.get(session_id) {
            Some(t) => t.clone(),
            None => {
                let t = format!(
                    "pdk_{}{}",
                    uuid::Uuid::new_v4().simple(),
                    uuid::Uuid::new_v4().simple()
                );
                state.by_session.insert(session_id.to_owned(), t.clone());
                t
            }
        };
        state.by_token.insert(
            token.clone(),
            Identity {
                session_id: session_id.to_owned(),
                project_slug: project_slug.to_owned(),
                manage,
            },
        );
        token
    }

    /// The chat moved to `project_slug` (`chat:promote`): its token, if it has one, speaks
    /// for it there, so nothing left of its old process acts for the project it left.
    pub fn moved(&self, session_id: &str, project_slug: &str) {
        let mut state = self.lock();
        let Some(token) = state.by_session.get(session_id).cloned() else {
            return;
        };
        if let Some(who) = state.by_token.get_mut(&token) {
            who.project_slug = project_slug.to_owned();
        }
    }

    /// The chat's token no longer speaks for anyone (a spare stopped unused: its session id
    /// never became a chat).
    pub fn revoke(&self, session_id: &str) {
        let mut state = self.lock();
        if let Some(token) = state.by_session.remove(session_id) {
            state.by_token.remove(&token);
        }
    }

    /// Who a token speaks for.
    pub fn resolve(&self, token: &str) -> Option<Identity> {
        self.lock().by_token.get(token).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chat_keeps_its_token_and_its_grant_follows_the_last_spawn() {
        let t = AgentTokens::default();
        let a = t.issue("s1", "web", true);
        let b = t.issue("s2", "web", false);
        assert_ne!(a, b);
        assert!(a.starts_with("pdk_") && a.len() > 60);
        assert_eq!(t.resolve(&a).map(|i| i.session_id), Some("s1".into()));
        let again = t.issue("s1", "web", false);
        assert_eq!(again, a);
        assert_eq!(t.resolve(&a).map(|i| i.manage), Some(false));
        assert!(t.resolve("pdk_forged").is_none());
        t.revoke("s1");
        assert!(t.resolve(&a).is_none());
        assert_eq!(t.resolve(&b).map(|i| i.session_id), Some("s2".into()));
        assert_ne!(
            t.issue("s1", "web", true),
            a,
            "a revoked token is never given again"
        );
    }
}
