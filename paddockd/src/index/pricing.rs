//! An **estimate** of what a chat cost, from a small per-model price table.
//!
//! The CLI only records `cost-state.totalCostUSD` at the end of each process, and not for chats
//! the user ran in their own terminal before we saw them, so the index derives a figure from the
//! token counts instead. It is an estimate, not a bill:
//!
//! | model ids containing | input $/MTok | output $/MTok |
//! |---|---|---|
//! | `claude-3-opus`, `claude-opus-4-0`, `claude-opus-4-1`, `claude-opus-4-2025` | 15.00 | 75.00 |
//! | `claude-3-haiku` | 0.25 | 1.25 |
//! | `claude-3-5-haiku` | 0.80 | 4.00 |
//! | `opus` (4.5 and later) | 5.00 | 25.00 |
//! | `sonnet` | 3.00 | 15.00 |
//! | `haiku` (4.5 and later) | 1.00 | 5.00 |
//!
//! The first matching row wins. Cache reads cost 0.1x the input price and cache writes 1.25x
//! (the 5-minute rate; 1-hour writes cost more). Not modelled: long-context surcharges, batch
//! discounts, regional endpoints, and model ids of unknown families, which add nothing.

/// Prices of one model family, in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

const LEGACY_OPUS: Price = Price {
    input: 15.0,
    output: 75.0,
};

/// Substring of the model id → price; the first match wins, so specific rows come first.
const TABLE: &[(&str, Price)] = &[
    ("claude-3-opus", LEGACY_OPUS),
    ("claude-opus-4-0", LEGACY_OPUS),
    ("claude-opus-4-1", LEGACY_OPUS),
    ("claude-opus-4-2025", LEGACY_OPUS),
    (
        "claude-3-haiku",
        Price {
            input: 0.25,
            output: 1.25,
        },
    ),
    (
        "claude-3-5-haiku",
        Price {
            input: 0.8,
            output: 4.0,
        },
    ),
    (
        "opus",
        Price {
            input: 5.0,
            output: 25.0,
        },
    ),
    (
        "sonnet",
        Price {
            input: 3.0,
            output: 15.0,
        },
    ),
    (
        "haiku",
        Price {
            input: 1.0,
            output: 5.0,
        },
    ),
];

const CACHE_READ_FACTOR: f64 = 0.1;
const CACHE_WRITE_FACTOR: f64 = 1.25;

/// The price of a model id, if its family is in the table.
pub fn price_of(model: &str) -> Option<Price> {
    // Ids are lower case already, all but a few: no copy for them.
    let model = if model.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(model.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(model)
    };
    TABLE
        .iter()
        .find(|(needle, _)| model.contains(needle))
        .map(|&(_, price)| price)
}

/// Token counts of one message (or of a whole chat).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_creation: u64,
}

impl Tokens {
    pub fn add(&mut self, other: &Tokens) {
        self.input = self.input.saturating_add(other.input);
        self.output = self.output.saturating_add(other.output);
        self.cache_read = self.cache_read.saturating_add(other.cache_read);
        self.cache_creation = self.cache_creation.saturating_add(other.cache_creation);
    }
}

/// The estimated cost in USD of `tokens` spent on `model`; 0 for unknown families.
pub fn estimate_usd(model: Option<&str>, tokens: &Tokens) -> f64 {
    let Some(price) = model.and_then(price_of) else {
        return 0.0;
    };
    #[allow(clippy::cast_precision_loss)] // token counts stay far below 2^52
    let per_mtok = tokens.input as f64 * price.input
        + tokens.output as f64 * price.output
        + tokens.cache_read as f64 * price.input * CACHE_READ_FACTOR
        + tokens.cache_creation as f64 * price.input * CACHE_WRITE_FACTOR;
    per_mtok / 1_000_000.0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn families_and_legacy_rows() {
        assert_eq!(price_of("claude-opus-4-1-20250805"), Some(LEGACY_OPUS));
        assert_eq!(
            price_of("us.anthropic.claude-opus-4-20250514-v1:0"),
            Some(LEGACY_OPUS)
        );
        assert_eq!(price_of("claude-opus-4-5").map(|p| p.input), Some(5.0));
        assert_eq!(price_of("claude-opus-5-5").map(|p| p.output), Some(25.0));
        assert_eq!(
            price_of("claude-sonnet-4-5[1m]").map(|p| p.input),
            Some(3.0)
        );
        assert_eq!(
            price_of("claude-3-5-haiku-latest").map(|p| p.input),
            Some(0.8)
        );
        assert_eq!(price_of("claude-haiku-4-5").map(|p| p.input), Some(1.0));
        assert_eq!(price_of("gpt-5"), None);
    }

    #[test]
    fn cache_factors() {
        let t = Tokens {
            input: 1_000_000,
            output: 1_000_000,
            cache_read: 1_000_000,
            cache_creation: 1_000_000,
        };
        let usd = estimate_usd(Some("claude-sonnet-4-5"), &t);
        assert!((usd - (3.0 + 15.0 + 0.3 + 3.75)).abs() < 1e-9, "{usd}");
        assert!(estimate_usd(Some("mystery"), &t).abs() < f64::EPSILON);
        assert!(estimate_usd(None, &t).abs() < f64::EPSILON);
    }
}
