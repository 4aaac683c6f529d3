//! Rewriting the recorder's machine-specific paths and ports to the stable placeholders of the
//! committed captures (`/home/dev/lab/...`, `/home/dev/tools/...`, port 41159), so a
//! re-recording differs from the last one only where the CLI's behaviour differs.

use std::path::Path;

use crate::cwd_encoding::encode_cwd;

/// Where the lab directory appears in the captures.
pub const LAB_PLACEHOLDER: &str = "/home/dev/lab";
/// Where the test tools (the MCP server) appear.
pub const TOOLS_PLACEHOLDER: &str = "/home/dev/tools";
/// The port every Messages API stand-in appears on.
pub const PORT_PLACEHOLDER: u16 = 41159;

/// An ordered list of literal replacements.
#[derive(Debug, Default, Clone)]
pub struct Scrubber {
    pairs: Vec<(String, String)>,
}

impl Scrubber {
    /// Replacements for a lab rooted at `lab` (a physical path) holding the working
    /// directories `cwds`, and the tool binaries `tools` (shown under [`TOOLS_PLACEHOLDER`]).
    pub fn new(lab: &Path, cwds: &[&Path], tools: &[&Path]) -> Self {
        let lab_text = lab.to_string_lossy().into_owned();
        let mut pairs = Vec::new();
        // Encoded cwds first: a long one ends in a hash of the whole path, so it cannot be
        // rewritten piecewise.
        let mut encoded: Vec<(String, String)> = cwds
            .iter()
            .map(|cwd| {
                let real = cwd.to_string_lossy().into_owned();
                let fake = placeholder_path(&real, &lab_text);
                (encode_cwd(&real), encode_cwd(&fake))
            })
            .collect();
        encoded.sort_by_key(|(real, _)| std::cmp::Reverse(real.len()));
        pairs.extend(encoded);
        for tool in tools {
            if let Some(name) = tool.file_name() {
                let fake = format!("{TOOLS_PLACEHOLDER}/{}", name.to_string_lossy());
                pairs.push((tool.to_string_lossy().into_owned(), fake));
            }
        }
        pairs.push((lab_text.clone(), LAB_PLACEHOLDER.to_owned()));
        pairs.push((encode_cwd(&lab_text), encode_cwd(LAB_PLACEHOLDER)));
        Self { pairs }
    }

    /// Also shows `127.0.0.1:<port>` as the placeholder port.
    pub fn add_port(&mut self, port: u16) {
        if port != PORT_PLACEHOLDER {
            self.pairs.push((
                format!("127.0.0.1:{port}"),
                format!("127.0.0.1:{PORT_PLACEHOLDER}"),
            ));
        }
    }

    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (real, fake) in &self.pairs {
            if out.contains(real.as_str()) {
                out = out.replace(real.as_str(), fake);
            }
        }
        out
    }
}

/// `real` with its `lab` prefix replaced by [`LAB_PLACEHOLDER`].
fn placeholder_path(real: &str, lab: &str) -> String {
    match real.strip_prefix(lab) {
        Some(rest) => format!("{LAB_PLACEHOLDER}{rest}"),
        None => real.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_paths_encodings_and_ports() {
        let lab = Path::new("/tmp/rec-x1/lab");
        let work = lab.join("work dir_1.x");
        let long = lab.join("a".repeat(230));
        let tool = Path::new("/work/target/debug/fake-mcp");
        let mut s = Scrubber::new(lab, &[&work, &long], &[tool]);
        s.add_port(5555);
        let text = format!(
            "{} {} {} {} http://127.0.0.1:5555/mcp",
            work.display(),
            encode_cwd(&work.to_string_lossy()),
            encode_cwd(&long.to_string_lossy()),
            tool.display()
        );
        let fake_long = format!("{LAB_PLACEHOLDER}/{}", "a".repeat(230));
        assert_eq!(
            s.apply(&text),
            format!(
                "/home/dev/lab/work dir_1.x -home-dev-lab-work-dir-1-x {} /home/dev/tools/fake-mcp http://127.0.0.1:41159/mcp",
                encode_cwd(&fake_long)
            )
        );
    }
}
