//! Command-line parsing for `fake-claude`: the flags paddockd passes, plus tolerance for the rest.

/// Flags that take exactly one value (`--flag value` or `--flag=value`).
const ONE_VALUE_FLAGS: &[&str] = &[
    "--model",
    "--append-system-prompt",
    "--system-prompt",
    "--permission-mode",
    "--settings",
    "--max-budget-usd",
    "--session-id",
    "--resume",
    "-r",
    "--input-format",
    "--output-format",
    "--permission-prompt-tool",
    "--fallback-model",
    "--json-schema",
    "--max-turns",
    "--setting-sources",
    "--agents",
    "--agent",
    "--effort",
    "--name",
];

/// Flags that take one or more values (the real CLI declares them variadic): every following
/// argument that does not start with `-` belongs to them.
const MANY_VALUE_FLAGS: &[&str] = &[
    "--mcp-config",
    "--allowedTools",
    "--allowed-tools",
    "--disallowedTools",
    "--disallowed-tools",
    "--tools",
    "--add-dir",
    "--betas",
    "--plugin-dir",
];

/// What `fake-claude` understood from its command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub print: bool,
    pub verbose: bool,
    pub input_format: Option<String>,
    pub output_format: Option<String>,
    pub include_partial_messages: bool,
    pub replay_user_messages: bool,
    pub permission_prompt_tool: Option<String>,
    pub session_id: Option<String>,
    pub resume: Option<String>,
    pub fork_session: bool,
    pub no_session_persistence: bool,
    pub model: Option<String>,
    pub permission_mode: Option<String>,
    pub mcp_configs: Vec<String>,
    pub allowed_tools: Vec<String>,
    /// Positional arguments (a prompt, in `-p "prompt"` style).
    pub positional: Vec<String>,
    /// Flags this parser does not know; accepted and ignored.
    pub unknown: Vec<String>,
}

impl Options {
    /// Parses the arguments after the program name. Never fails: unknown flags are kept in
    /// [`Options::unknown`].
    pub fn parse<I: IntoIterator<Item = String>>(args: I) -> Self {
        let mut opts = Options::default();
        let mut args = args.into_iter().peekable();
        while let Some(arg) = args.next() {
            if arg == "--" {
                opts.positional.extend(args.by_ref());
                break;
            }
            if !arg.starts_with('-') || arg == "-" {
                opts.positional.push(arg);
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_owned(), Some(v.to_owned())),
                _ => (arg.clone(), None),
            };
            let mut values = Vec::new();
            if ONE_VALUE_FLAGS.contains(&flag.as_str()) {
                if let Some(v) = inline {
                    values.push(v);
                } else if let Some(v) = args.next() {
                    values.push(v);
                }
            } else if MANY_VALUE_FLAGS.contains(&flag.as_str()) {
                values.extend(inline);
                while let Some(next) = args.peek() {
                    if next.starts_with('-') {
                        break;
                    }
                    values.extend(args.next());
                }
            } else if let Some(v) = inline {
                values.push(v);
            }
            opts.apply(&flag, values);
        }
        opts
    }

    fn apply(&mut self, flag: &str, mut values: Vec<String>) {
        let last = values.last().cloned();
        match flag {
            "-p" | "--print" => self.print = true,
            "--verbose" => self.verbose = true,
            "--include-partial-messages" => self.include_partial_messages = true,
            "--replay-user-messages" => self.replay_user_messages = true,
            "--fork-session" => self.fork_session = true,
            "--no-session-persistence" => self.no_session_persistence = true,
            "--input-format" => self.input_format = last,
            "--output-format" => self.output_format = last,
            "--permission-prompt-tool" => self.permission_prompt_tool = last,
            "--session-id" => self.session_id = last,
            "--resume" | "-r" => self.resume = last,
            "--model" => self.model = last,
            "--permission-mode" => self.permission_mode = last,
            "--mcp-config" => self.mcp_configs.append(&mut values),
            "--allowedTools" | "--allowed-tools" => self.allowed_tools.append(&mut values),
            f if ONE_VALUE_FLAGS.contains(&f) || MANY_VALUE_FLAGS.contains(&f) => {}
            other => self.unknown.push(other.to_owned()),
        }
    }

    /// Whether user messages come as stream-json on stdin (paddockd's mode).
    pub fn stream_input(&self) -> bool {
        self.input_format.as_deref() == Some("stream-json")
    }
}

/// Whether `s` is a UUID in the canonical hyphenated 8-4-4-4-12 form (what the real CLI accepts).
pub fn is_canonical_uuid(s: &str) -> bool {
    s.len() == 36
        && s.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Options {
        Options::parse(args.iter().map(|s| (*s).to_owned()))
    }

    #[test]
    fn parses_the_daemon_invocation() {
        let o = parse(&[
            "-p",
            "--input-format",
            "stream-json",
            "--output-format=stream-json",
            "--verbose",
            "--include-partial-messages",
            "--replay-user-messages",
            "--permission-prompt-tool",
            "stdio",
            "--session-id",
            "11111111-2222-4333-8444-555555555555",
            "--model",
            "m1",
            "--mcp-config",
            "a.json",
            "{\"mcpServers\":{}}",
            "--allowedTools",
            "Bash",
            "--allowedTools",
            "mcp__x__*",
            "--brand-new-flag",
            "--append-system-prompt",
            "be --nice",
        ]);
        assert!(o.print && o.verbose && o.stream_input());
        assert_eq!(o.output_format.as_deref(), Some("stream-json"));
        assert!(o.include_partial_messages && o.replay_user_messages);
        assert_eq!(o.permission_prompt_tool.as_deref(), Some("stdio"));
        assert_eq!(
            o.session_id.as_deref(),
            Some("11111111-2222-4333-8444-555555555555")
        );
        assert_eq!(o.model.as_deref(), Some("m1"));
        assert_eq!(o.mcp_configs, ["a.json", "{\"mcpServers\":{}}"]);
        assert_eq!(o.allowed_tools, ["Bash", "mcp__x__*"]);
        assert_eq!(o.unknown, ["--brand-new-flag"]);
        assert!(o.positional.is_empty());
    }

    #[test]
    fn uuid_check_is_strict() {
        assert!(is_canonical_uuid("11111111-2222-4333-8444-555555555555"));
        assert!(is_canonical_uuid("ABCDEF00-2222-4333-8444-555555555555"));
        assert!(!is_canonical_uuid("not-a-uuid"));
        assert!(!is_canonical_uuid("111111112222433384445555555555555555"));
        assert!(!is_canonical_uuid("{1111111-2222-4333-8444-555555555555}"));
    }
}
