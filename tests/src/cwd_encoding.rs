//! How Claude Code names the per-project transcript folder under `$CLAUDE_CONFIG_DIR/projects/`.
//!
//! Rule (docs/claude-cli.md §6, identical to the CLI's own code): every UTF-16 code unit outside
//! `[A-Za-z0-9]` becomes `-`; a result longer than 200 units is cut to 200 and suffixed with
//! `-` and the base-36 absolute value of the Java-style 32-bit hash of the *original* path.

/// Longest encoded name kept verbatim.
const MAX_ENCODED_LEN: usize = 200;

/// Encodes a (physical) working directory the way Claude Code names its project folder.
pub fn encode_cwd(path: &str) -> String {
    let encoded: String = path
        .encode_utf16()
        .map(|unit| match u8::try_from(unit) {
            Ok(byte) if byte.is_ascii_alphanumeric() => char::from(byte),
            _ => '-',
        })
        .collect();
    // Every char of `encoded` is ASCII, so byte length == UTF-16 length.
    if encoded.len() <= MAX_ENCODED_LEN {
        return encoded;
    }
    let hash = java_string_hash(path);
    format!(
        "{}-{}",
        &encoded[..MAX_ENCODED_LEN],
        to_base36(hash.unsigned_abs())
    )
}

/// Java's `String.hashCode` over UTF-16 code units, wrapping in 32 bits (`h = h*31 + unit | 0`).
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// Lower-case base 36, as JavaScript's `Number.prototype.toString(36)`.
pub fn to_base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".to_owned();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use std::path::Path;

    /// (original cwd, folder name) pairs copied from the real captures in
    /// `fixtures/claude-cli-2.1.332/transcripts/`.
    const FIXTURE_PAIRS: &[(&str, &str)] = &[
        ("/home/dev/lab/work dir_1.x", "-home-dev-lab-work-dir-1-x"),
        ("/home/dev/lab/other-cwd", "-home-dev-lab-other-cwd"),
        ("/home/dev/lab/emoji😀dir", "-home-dev-lab-emoji--dir"),
        (
            "/home/dev/lab/wéird dir_name.v2+x~y",
            "-home-dev-lab-w-ird-dir-name-v2-x-y",
        ),
        (
            "/home/dev/lab/seg00_abcdefghijklmnopqrstuvwxyz/seg01_abcdefghijklmnopqrstuvwxyz/seg02_abcdefghijklmnopqrstuvwxyz/seg03_abcdefghijklmnopqrstuvwxyz/seg04_abcdefghijklmnopqrstuvwxyz/seg05_abcdefghijklmnopqrstuvwxyz/seg06_abcdefghijklmnopqrstuvwxyz/seg07_abcdefghijklmnopqrstuvwxyz",
            "-home-dev-lab-seg00-abcdefghijklmnopqrstuvwxyz-seg01-abcdefghijklmnopqrstuvwxyz-seg02-abcdefghijklmnopqrstuvwxyz-seg03-abcdefghijklmnopqrstuvwxyz-seg04-abcdefghijklmnopqrstuvwxyz-seg05-abcdefghijklmno-b9vc6q",
        ),
    ];

    #[test]
    fn encodes_the_fixture_paths() {
        for (cwd, dir) in FIXTURE_PAIRS {
            assert_eq!(encode_cwd(cwd), *dir, "cwd {cwd:?}");
        }
    }

    #[test]
    fn short_paths_keep_their_length_in_utf16_units() {
        assert_eq!(encode_cwd("/a b/é/😀"), "-a-b-----");
        assert_eq!(encode_cwd(&"x".repeat(200)), "x".repeat(200));
        let long = "y".repeat(201);
        let enc = encode_cwd(&long);
        assert!(enc.starts_with(&format!("{}-", "y".repeat(200))), "{enc}");
    }

    #[test]
    fn hash_and_base36_match_javascript() {
        // "hello".hashCode() in Java is 99162322; (99162322).toString(36) == "1n1e4y".
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(to_base36(99_162_322), "1n1e4y");
        assert_eq!(to_base36(0), "0");
        assert_eq!(to_base36(35), "z");
        assert_eq!(i32::MIN.unsigned_abs(), 2_147_483_648);
    }

    /// Every transcript folder name of the real CLI's captures must be the encoding of one of
    /// the `cwd` values recorded inside it.
    #[test]
    fn matches_the_fixture_folders() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let dirs = ["claude-cli-2.1.332", "claude-cli-2.1.197"]
            .iter()
            .flat_map(|release| {
                std::fs::read_dir(fixtures.join(release).join("transcripts"))
                    .expect("tests/fixtures holds the CLI captures")
                    .flatten()
            });
        let mut checked = 0;
        for dir in dirs {
            let name = dir.file_name().to_string_lossy().into_owned();
            let mut cwds = std::collections::BTreeSet::new();
            for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                if file.path().extension().is_none_or(|e| e != "jsonl") {
                    continue;
                }
                let text = std::fs::read_to_string(file.path()).unwrap();
                for line in text.lines() {
                    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
                        continue;
                    };
                    if let Some(cwd) = v.get("cwd").and_then(|c| c.as_str()) {
                        cwds.insert(cwd.to_owned());
                    }
                }
            }
            if cwds.is_empty() {
                continue;
            }
            assert!(
                cwds.iter().any(|cwd| encode_cwd(cwd) == name),
                "no cwd in {name} encodes to its name: {cwds:?}"
            );
            checked += 1;
        }
        assert!(checked >= 8, "only {checked} fixture folders checked");
    }
}
