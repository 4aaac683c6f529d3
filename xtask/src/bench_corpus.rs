//! The 10,000 transcripts the listing and search benches read, written as Claude Code 2.1
//! writes them, in prose drawn from a realistic vocabulary.
//!
//! Prose follows Zipf's law: the word of rank r appears with a frequency proportional to 1/r.
//! [`Vocabulary`] holds 50,000 words (the hundred most common English words, then made-up words
//! of two or three syllables) and draws from them by that law, so a chat has the few words
//! every text has, a long tail of words a few chats share, and words found in one chat or
//! none — the shape real chats give a search index (a lorem of twenty words gives it none).
//! Each chat's text is its own, drawn from a generator seeded by the chat's number: the corpus
//! is the same in every run.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;

pub const CHATS: usize = 10_000;
/// Bytes of tool output per tool call (the CLI stores it twice: in the result and in
/// `toolUseResult`); with the rest, a transcript is about 75 KB, 0.75 GB in all.
const TOOL_OUTPUT: usize = 4_000;
const TURNS: usize = 7;
const CORPUS_VERSION: &str = "chats-v2-zipf50000-10000x7-4000";

/// The most common English words, most common first: the head of the vocabulary.
const COMMON: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "it", "that", "for", "on", "with", "as", "this",
    "was", "be", "by", "not", "are", "at", "from", "or", "have", "an", "they", "which", "you",
    "one", "we", "all", "were", "her", "would", "there", "their", "will", "when", "who", "him",
    "been", "has", "more", "if", "no", "out", "so", "said", "what", "up", "its", "about", "into",
    "than", "them", "can", "only", "other", "new", "some", "could", "time", "these", "two", "may",
    "then", "do", "first", "any", "my", "now", "such", "like", "our", "over", "man", "me", "even",
    "most", "made", "after", "also", "did", "many", "before", "must", "through", "back", "years",
    "where", "much", "your", "way", "well", "down", "should", "because", "each", "just", "those",
    "people",
];

/// 50,000 words and a sampler of them by Zipf's law (exponent 1).
pub struct Vocabulary {
    words: Vec<String>,
    /// The cumulative probability of each rank.
    cdf: Vec<f64>,
}

pub const VOCABULARY: usize = 50_000;

impl Vocabulary {
    pub fn new() -> Self {
        let words: Vec<String> = (0..VOCABULARY).map(made_word).collect();
        let mut cdf = Vec::with_capacity(VOCABULARY);
        let mut sum = 0.0;
        for rank in 1..=VOCABULARY {
            sum += 1.0 / rank as f64;
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Self { words, cdf }
    }

    /// The word of `rank` (0 the most common).
    pub fn word(&self, rank: usize) -> &str {
        self.words.get(rank).map_or("", String::as_str)
    }

    fn draw(&self, rng: &mut Rng) -> &str {
        let u = rng.unit();
        let rank = self.cdf.partition_point(|&c| c < u);
        self.word(rank.min(VOCABULARY - 1))
    }

    /// About `bytes` of prose: sentences of 6 to 20 words, each capitalised and ended by a
    /// full stop, a paragraph break now and then.
    fn prose(&self, rng: &mut Rng, bytes: usize) -> String {
        let mut out = String::with_capacity(bytes + 32);
        while out.len() < bytes {
            let words = 6 + rng.below(15);
            for i in 0..words {
                let w = self.draw(rng);
                if i == 0 {
                    let mut chars = w.chars();
                    if let Some(c) = chars.next() {
                        out.extend(c.to_uppercase());
                        out.push_str(chars.as_str());
                    }
                } else {
                    out.push(' ');
                    out.push_str(w);
                }
            }
            out.push_str(if rng.below(6) == 0 { ".\n\n" } else { ". " });
        }
        out
    }
}

impl Default for Vocabulary {
    fn default() -> Self {
        Self::new()
    }
}

/// The word of `rank`: one of [`COMMON`], then consonant-vowel syllables spelling the rank in
/// base 70 (two or three of them: "kamo", "tevira"), each rank its own word.
fn made_word(rank: usize) -> String {
    if let Some(w) = COMMON.get(rank) {
        return (*w).to_owned();
    }
    const CONSONANTS: &[u8] = b"bdfgklmnprstvz";
    const VOWELS: &[u8] = b"aeiou";
    let base = CONSONANTS.len() * VOWELS.len();
    let mut n = rank - COMMON.len() + base;
    let mut syllables = Vec::new();
    while n > 0 {
        let s = n % base;
        syllables.push([CONSONANTS[s / VOWELS.len()], VOWELS[s % VOWELS.len()]]);
        n /= base;
    }
    syllables
        .iter()
        .rev()
        .flat_map(|s| s.iter().map(|&b| char::from(b)))
        .collect()
}

/// splitmix64: small, fast, and the same sequence for the same seed everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Generates the corpus in `chats` unless a complete one is already there; the number of
/// transcripts and their bytes.
pub fn corpus(bench: &Path, workspace: &Path, chats: &Path) -> Result<(usize, u64)> {
    let marker = bench.join("corpus.done");
    if std::fs::read_to_string(&marker).ok().as_deref() == Some(CORPUS_VERSION) {
        return measure(chats);
    }
    let _ = std::fs::remove_dir_all(bench);
    std::fs::create_dir_all(chats)?;
    let cwd = std::fs::canonicalize(workspace)?;
    let cwd = cwd.to_string_lossy().into_owned();
    let t = Instant::now();
    let vocabulary = Vocabulary::new();
    for n in 0..CHATS {
        let sid = uuid_for(n);
        let text = transcript(&vocabulary, &sid, &cwd, n);
        std::fs::write(chats.join(format!("{sid}.jsonl")), text)?;
        if (n + 1) % 2000 == 0 {
            eprintln!(
                "  generated {} of {CHATS} transcripts ({:.0} s)",
                n + 1,
                t.elapsed().as_secs_f64()
            );
        }
    }
    std::fs::write(&marker, CORPUS_VERSION)?;
    measure(chats)
}

fn measure(chats: &Path) -> Result<(usize, u64)> {
    let mut files = 0;
    let mut bytes = 0;
    for e in std::fs::read_dir(chats)?.flatten() {
        files += 1;
        bytes += e.metadata()?.len();
    }
    Ok((files, bytes))
}

/// A stable UUID-shaped id per chat number.
pub fn uuid_for(n: usize) -> String {
    format!("{:08x}-0000-4000-8000-{:012x}", n, n * 7919)
}

/// What the CLI renders of the environment: the same in every chat.
const ENVIRONMENT: &str = "Working directory, platform linux, shell bash. ";

/// One realistic transcript: a prompt, attachments, and turns of text, a tool call and its
/// large result, each assistant message with usage, as Claude Code 2.1 writes them. Every
/// prompt says "look at the module layout" and every chat ends "the module layout is
/// summarised above": words and a phrase in every chat.
fn transcript(vocabulary: &Vocabulary, sid: &str, cwd: &str, n: usize) -> String {
    use serde_json::json;
    let mut rng = Rng(n as u64);
    let mut out = String::new();
    let mut push = |v: serde_json::Value| {
        out.push_str(&v.to_string());
        out.push('\n');
    };
    let mut t = 1_764_000_000_000i64 + i64::try_from(n).unwrap_or(0) * 60_000;
    let mut stamp = || {
        t += 1500;
        chrono_like(t)
    };
    let prompt = format!(
        "Chat {n}: look at the module layout and {} Then summarise what you changed.",
        vocabulary.prose(&mut rng, 200 + n % 800)
    );
    push(
        json!({"type":"queue-operation","operation":"enqueue","timestamp":stamp(),"sessionId":sid,"content":prompt}),
    );
    let mut parent = format!("{n:08x}-1111-4000-8000-000000000000");
    push(json!({"parentUuid":null,"isSidechain":false,"type":"user",
        "message":{"role":"user","content":prompt},"uuid":parent,"timestamp":stamp(),
        "permissionMode":"default","promptSource":"sdk","userType":"external","entrypoint":"sdk-cli",
        "cwd":cwd,"sessionId":sid,"version":"2.1.332","gitBranch":"main"}));
    push(
        json!({"parentUuid":parent,"isSidechain":false,"type":"attachment",
        "attachment":{"type":"environment","snapshot":{"workingDirectory":cwd,"platform":"linux","shell":"bash"}},
        "rendered":[ENVIRONMENT.repeat(50)],"uuid":format!("{n:08x}-2222-4000-8000-000000000000"),
        "timestamp":stamp(),"cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
    );
    for turn in 0..TURNS {
        let msg_id = format!("msg_{n:08x}_{turn}");
        let tool_id = format!("toolu_{n:08x}_{turn}");
        let usage = json!({"input_tokens": 3 + turn, "output_tokens": 180 + turn * 10,
            "cache_read_input_tokens": 12_000 + turn * 4_000, "cache_creation_input_tokens": 2_500});
        let a1 = format!("{n:08x}-{turn:04x}-4000-8000-00000000000a");
        push(
            json!({"parentUuid":parent,"isSidechain":false,"type":"assistant",
            "message":{"id":msg_id,"type":"message","role":"assistant","model":"claude-sonnet-4-5",
                "content":[{"type":"text","text":vocabulary.prose(&mut rng, 900)}],
                "stop_reason":null,"usage":usage},
            "requestId":format!("req_{n}_{turn}"),"uuid":a1,"timestamp":stamp(),
            "cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
        );
        let a2 = format!("{n:08x}-{turn:04x}-4000-8000-00000000000b");
        push(
            json!({"parentUuid":a1,"isSidechain":false,"type":"assistant",
            "message":{"id":msg_id,"type":"message","role":"assistant","model":"claude-sonnet-4-5",
                "content":[{"type":"tool_use","id":tool_id,"name":"Read","input":{"file_path":format!("{cwd}/src/module_{turn}.rs")}}],
                "stop_reason":"tool_use","usage":usage},
            "requestId":format!("req_{n}_{turn}"),"uuid":a2,"timestamp":stamp(),
            "cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
        );
        let r = format!("{n:08x}-{turn:04x}-4000-8000-00000000000c");
        let output = vocabulary.prose(&mut rng, TOOL_OUTPUT);
        push(json!({"parentUuid":a2,"isSidechain":false,"type":"user",
            "message":{"role":"user","content":[{"type":"tool_result","tool_use_id":tool_id,"content":output}]},
            "toolUseResult":{"type":"text","file":{"filePath":format!("{cwd}/src/module_{turn}.rs"),"content":output,"numLines":400,"startLine":1,"totalLines":400}},
            "sourceToolAssistantUUID":a2,"uuid":r,"timestamp":stamp(),
            "cwd":cwd,"sessionId":sid,"version":"2.1.332"}));
        parent = r;
    }
    let last = format!("{n:08x}-ffff-4000-8000-00000000000d");
    push(
        json!({"parentUuid":parent,"isSidechain":false,"type":"assistant",
        "message":{"id":format!("msg_{n:08x}_end"),"type":"message","role":"assistant","model":"claude-sonnet-4-5",
            "content":[{"type":"text","text":"Done: the module layout is summarised above."}],
            "stop_reason":"end_turn","usage":{"input_tokens":2,"output_tokens":420,
                "cache_read_input_tokens":40_000,"cache_creation_input_tokens":1_200}},
        "uuid":last,"timestamp":stamp(),"cwd":cwd,"sessionId":sid,"version":"2.1.332"}),
    );
    push(json!({"type":"last-prompt","lastPrompt":"look at the module layout","leafUuid":last}));
    out
}

/// An assistant line saying `text`, as the CLI appends one to chat `n`'s transcript.
pub fn assistant_line(n: usize, text: &str) -> String {
    let sid = uuid_for(n);
    let line = serde_json::json!({"parentUuid":null,"isSidechain":false,"type":"assistant",
        "message":{"id":format!("msg_{n:08x}_more"),"type":"message","role":"assistant",
            "model":"claude-sonnet-4-5","content":[{"type":"text","text":text}],
            "stop_reason":"end_turn","usage":{"input_tokens":2,"output_tokens":20}},
        "uuid":format!("{n:08x}-eeee-4000-8000-00000000000e"),
        "timestamp":chrono_like(1_800_000_000_000),"sessionId":sid,"version":"2.1.332"});
    format!("{line}\n")
}

/// RFC 3339 (UTC, milliseconds) of an epoch-ms time, without pulling in a date crate.
fn chrono_like(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let milli = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (h, m, s) = (rem / 3600, rem / 60 % 60, rem % 60);
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn dates_are_rfc3339() {
        assert_eq!(chrono_like(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(chrono_like(1_764_000_000_123), "2025-11-24T16:00:00.123Z");
    }

    #[test]
    fn a_transcript_is_about_75_kb_of_json_lines() {
        let v = Vocabulary::new();
        let t = transcript(&v, &uuid_for(7), "/tmp/x", 7);
        assert!(t.len() > 60_000 && t.len() < 100_000, "{} bytes", t.len());
        for line in t.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("JSON line");
            assert!(v.get("type").is_some());
        }
        let extra: serde_json::Value = serde_json::from_str(&assistant_line(7, "hi")).unwrap();
        assert_eq!(extra["sessionId"], uuid_for(7));
    }

    #[test]
    fn every_word_of_the_vocabulary_is_its_own() {
        let v = Vocabulary::new();
        let words: std::collections::HashSet<&str> = (0..VOCABULARY).map(|r| v.word(r)).collect();
        // Made-up words may spell a common one ("made" is "ma" "de"): a handful at most.
        assert!(words.len() > VOCABULARY - 20, "{}", words.len());
        assert_eq!(v.word(0), "the");
        assert!(v.word(VOCABULARY - 1).len() <= 6);
    }

    #[test]
    fn prose_follows_zipf() {
        let v = Vocabulary::new();
        let mut rng = Rng(1);
        let text = v.prose(&mut rng, 400_000).to_lowercase();
        let count = |w: &str| {
            text.split(|c: char| !c.is_alphanumeric())
                .filter(|t| *t == w)
                .count() as f64
        };
        let (first, second, tenth) = (count("the"), count("of"), count("for"));
        // Frequencies fall as 1/rank: the second word about half as often, the tenth a tenth.
        assert!((first / second - 2.0).abs() < 0.3, "{first} {second}");
        assert!((first / tenth - 10.0).abs() < 2.0, "{first} {tenth}");
    }
}
