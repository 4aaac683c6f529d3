//! The curation budgets of the sweeper's files (`curation_*_max_tokens`), as the
//! configuration reads them; `sweeper/files.rs` applies them.

/// The files a sweep curates: OVERVIEW.md and CHANGELOG.md in a project's metadata folder,
/// CLAUDE.md in its agent directory.
pub const OVERVIEW_FILE: &str = "OVERVIEW.md";
pub const CHANGELOG_FILE: &str = "CHANGELOG.md";
pub const CLAUDE_FILE: &str = "CLAUDE.md";

/// How a token budget becomes a byte limit: prose and code average about four bytes a token,
/// so `N` tokens are `4 × N` bytes (no tokenizer runs here; the limit is a backstop).
pub const BYTES_PER_TOKEN: usize = 4;

/// The curation budgets, in tokens (reference: `PADDOCK_CURATION_*_MAX_TOKENS`): the config's
/// `curation_*_max_tokens`, which a project's `project.toml` may override key by key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budgets {
    /// OVERVIEW.md; over it, the head is kept.
    pub overview_tokens: usize,
    /// CHANGELOG.md; over it, the newest (top) entries are kept.
    pub changelog_tokens: usize,
    /// The managed section of CLAUDE.md; over it, the head is kept.
    pub claudemd_tokens: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            overview_tokens: 2000,
            changelog_tokens: 8000,
            claudemd_tokens: 6000,
        }
    }
}

/// The smallest and largest budget a key may set, in tokens.
pub const MIN_BUDGET_TOKENS: usize = 100;
pub const MAX_BUDGET_TOKENS: usize = 1_000_000;

impl Budgets {
    pub fn overview_bytes(&self) -> usize {
        self.overview_tokens.saturating_mul(BYTES_PER_TOKEN)
    }

    pub fn changelog_bytes(&self) -> usize {
        self.changelog_tokens.saturating_mul(BYTES_PER_TOKEN)
    }

    pub fn claudemd_bytes(&self) -> usize {
        self.claudemd_tokens.saturating_mul(BYTES_PER_TOKEN)
    }
}

/// Whether `tokens` is a budget `key` may have.
pub fn check(key: &str, tokens: usize) -> Result<(), String> {
    if (MIN_BUDGET_TOKENS..=MAX_BUDGET_TOKENS).contains(&tokens) {
        Ok(())
    } else {
        Err(format!(
            "{key} is {tokens}; it must be between {MIN_BUDGET_TOKENS} and {MAX_BUDGET_TOKENS} tokens"
        ))
    }
}
