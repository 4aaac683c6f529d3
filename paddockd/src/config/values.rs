//! How configuration values are written by people: one reading of a yes/no for every boolean
//! key, in the environment and the file alike, and errors that name the key and the value.

use serde::Deserialize;

/// The words a yes/no value may be, in any case.
pub const FLAG_WORDS: &str = "1 or 0, true or false, yes or no, on or off";

/// A boolean configuration value as people write it: `1`/`0`, `true`/`false`, `yes`/`no`,
/// `on`/`off`, in any case. In the file it may also be a TOML boolean or the integer 0 or 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flag(pub bool);

/// Reads a yes/no word; `None` for anything else.
pub fn parse_flag(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

impl std::str::FromStr for Flag {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_flag(s)
            .map(Flag)
            .ok_or_else(|| format!("expected {FLAG_WORDS}, not {s:?}"))
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Flag;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{FLAG_WORDS}")
            }

            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Flag, E> {
                Ok(Flag(v))
            }

            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Flag, E> {
                match v {
                    0 => Ok(Flag(false)),
                    1 => Ok(Flag(true)),
                    _ => Err(E::custom(format!("expected {FLAG_WORDS}, not {v}"))),
                }
            }

            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Flag, E> {
                self.visit_i64(i64::try_from(v).unwrap_or(i64::MAX))
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Flag, E> {
                v.parse().map_err(E::custom)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// What a whole number of `key` is counted in, for an error message.
fn unit_of(key: &str) -> &'static str {
    if key.ends_with("_secs") {
        " of seconds"
    } else if key.ends_with("_ms") {
        " of milliseconds"
    } else if key.ends_with("_mb") {
        " of megabytes"
    } else if key.ends_with("_tokens") {
        " of tokens"
    } else if key.ends_with("_bytes") {
        " of bytes"
    } else {
        ""
    }
}

/// The message for a value of `key` that did not parse as a `T`: a number says it wants a
/// whole number (and of what), anything else keeps the parser's own words.
pub fn explain<T>(key: &str, parser_said: &str) -> String {
    let name = std::any::type_name::<T>();
    if matches!(name, "u8" | "u16" | "u32" | "u64" | "usize") {
        format!("expected a whole number{}", unit_of(key))
    } else {
        parser_said.to_owned()
    }
}

/// The TOML parser's words with its Rust type names in plain words (`expected u64`).
pub fn plain_numbers(message: &str) -> String {
    ["u8", "u16", "u32", "u64", "usize"]
        .iter()
        .fold(message.to_owned(), |m, ty| {
            m.replace(&format!("expected {ty}"), "expected a whole number")
        })
}

/// Where in the file a TOML error is, as `line N (the line)`, so the message names the key
/// and the value even when the parser's own words name neither.
pub fn locate(text: &str, span: Option<std::ops::Range<usize>>) -> Option<String> {
    let start = span?.start.min(text.len());
    let line_no = text.get(..start)?.matches('\n').count() + 1;
    let line = text.lines().nth(line_no - 1)?.trim();
    Some(if line.is_empty() {
        format!("line {line_no}")
    } else {
        format!("line {line_no} ({line})")
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn every_spelling_of_yes_and_no() {
        for yes in ["1", "true", "TRUE", "Yes", "on", " ON "] {
            assert_eq!(yes.parse::<Flag>(), Ok(Flag(true)), "{yes}");
        }
        for no in ["0", "false", "False", "NO", "off", "Off"] {
            assert_eq!(no.parse::<Flag>(), Ok(Flag(false)), "{no}");
        }
        let err = "maybe".parse::<Flag>().unwrap_err();
        assert!(err.contains("maybe") && err.contains("on or off"), "{err}");
    }

    #[test]
    fn the_file_takes_booleans_numbers_and_words() {
        #[derive(Deserialize)]
        struct F {
            a: Flag,
            b: Flag,
            c: Flag,
        }
        let f: F = toml::from_str("a = true\nb = 0\nc = \"Yes\"\n").unwrap();
        assert_eq!((f.a, f.b, f.c), (Flag(true), Flag(false), Flag(true)));
        let err = toml::from_str::<F>("a = 2\nb = 0\nc = 1\n").err().unwrap();
        assert!(err.message().contains("not 2"), "{err}");
    }

    #[test]
    fn a_number_says_what_it_counts() {
        let m = explain::<u64>("idle_timeout_secs", "invalid digit found in string");
        assert!(m.contains("whole number of seconds"), "{m}");
        assert_eq!(explain::<String>("x", "as said"), "as said");
        assert_eq!(
            locate("a = 1\nmax_processes = \"many\"\n", Some(22..28)).as_deref(),
            Some("line 2 (max_processes = \"many\")")
        );
    }
}
