//! `files:list` for people: `paddock ls-files` and the TUI's file browser.

use paddock_proto::{FileEntry, FileListing};

/// A size for people: `812 B`, `2.4 KiB`, `13.0 MiB`.
pub fn file_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// An entry's name as listed: `dir/`, `link@`, `link@ (outside the project)`.
pub fn entry_name(e: &FileEntry) -> String {
    let mut s = e.name.clone();
    if e.dir {
        s.push('/');
    }
    if e.symlink {
        s.push('@');
    }
    if e.outside {
        s.push_str(" (outside the project)");
    }
    s
}

/// An entry's mtime in the local zone, `2026-11-03 09:14`, or blank.
pub fn entry_time(e: &FileEntry) -> String {
    e.mtime
        .as_deref()
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%Y-%m-%d %H:%M")
                .to_string()
        })
        .unwrap_or_default()
}

/// One line per entry (size, mtime, name), then a line when the listing was cut.
pub fn file_listing(l: &FileListing) -> String {
    let sizes: Vec<String> = l
        .entries
        .iter()
        .map(|e| {
            if e.dir || e.outside {
                String::new()
            } else {
                file_size(e.size)
            }
        })
        .collect();
    let width = sizes.iter().map(String::len).max().unwrap_or(0);
    let mut out = String::new();
    for (e, size) in l.entries.iter().zip(&sizes) {
        let time = entry_time(e);
        out.push_str(&format!("{size:>width$}  {time:16}  {}\n", entry_name(e)));
    }
    if l.entries.is_empty() {
        out.push_str("(empty)\n");
    }
    if l.truncated {
        out.push_str(&format!(
            "… more entries left out (the first {} are shown)\n",
            l.entries.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, dir: bool, size: u64) -> FileEntry {
        FileEntry {
            name: name.into(),
            dir,
            symlink: false,
            outside: false,
            size,
            mtime: None,
        }
    }

    #[test]
    fn sizes_and_names() {
        assert_eq!(file_size(812), "812 B");
        assert_eq!(file_size(2_457), "2.4 KiB");
        assert_eq!(file_size(13 * 1024 * 1024), "13.0 MiB");
        let mut link = entry("secret", false, 0);
        link.symlink = true;
        link.outside = true;
        assert_eq!(entry_name(&link), "secret@ (outside the project)");
        let l = FileListing {
            project_slug: "web".into(),
            path: String::new(),
            entries: vec![entry("src", true, 0), entry("a.ts", false, 3), link],
            truncated: true,
        };
        let pad = " ".repeat(23);
        assert_eq!(
            file_listing(&l),
            format!(
                "{pad}src/\n3 B{}a.ts\n{pad}secret@ (outside the project)\n\
                 … more entries left out (the first 3 are shown)\n",
                " ".repeat(20)
            )
        );
    }
}
