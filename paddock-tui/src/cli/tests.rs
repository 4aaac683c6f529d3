//! The command line parses as documented: every command, its defaults and its refusals.

use super::*;

fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("paddock").chain(args.iter().copied()))
}

#[test]
fn the_command_definition_is_consistent() {
    command().debug_assert();
}

#[test]
fn remote_is_a_global_option_and_proxy_a_command() -> Result<(), clap::Error> {
    let cli = parse(&[
        "ls",
        "--remote",
        "me@devbox",
        "--remote-paddock",
        "~/bin/paddock",
        "--socket",
        "/run/p.sock",
    ])?;
    assert_eq!(cli.remote, ["me@devbox"]);
    assert_eq!(cli.remote_paddock, Some(PathBuf::from("~/bin/paddock")));
    assert_eq!(cli.socket, Some(PathBuf::from("/run/p.sock")));
    assert!(matches!(cli.command, Some(Cmd::Ls(_))));
    let cli = parse(&["--remote", "devbox"])?;
    assert!(cli.command.is_none(), "the TUI, through ssh");
    let cli = parse(&["--remote", "a", "--remote", "b,c", "hosts"])?;
    assert_eq!(cli.remote, ["a", "b", "c"], "several hosts");
    assert!(matches!(cli.command, Some(Cmd::Hosts(_))));
    assert!(matches!(
        parse(&["proxy"])?.command,
        Some(Cmd::Proxy { no_start: false })
    ));
    assert!(parse(&["proxy", "extra"]).is_err());
    Ok(())
}

#[test]
fn search_takes_words_and_its_options() -> Result<(), clap::Error> {
    assert!(parse(&["search"]).is_err(), "a query is required");
    let cli = parse(&["search", "cookie", "\"refresh race\""])?;
    let Some(Cmd::Search(args)) = cli.command else {
        panic!("not search: {:?}", cli.command);
    };
    assert_eq!(args.query, ["cookie", "\"refresh race\""]);
    assert_eq!((args.project, args.limit), (None, None));
    assert!(!args.archived && !args.json);
    let cli = parse(&[
        "search",
        "-p",
        "web",
        "flaky",
        "--archived",
        "--limit",
        "500",
        "--json",
    ])?;
    let Some(Cmd::Search(args)) = cli.command else {
        panic!("not search: {:?}", cli.command);
    };
    assert_eq!(args.query, ["flaky"]);
    assert_eq!(args.project.as_deref(), Some("web"));
    assert_eq!(args.limit, Some(500));
    assert!(args.archived && args.json);
    assert!(parse(&["search", "x", "--limit", "0"]).is_err());
    assert!(parse(&["search", "x", "--limit", "501"]).is_err());
    Ok(())
}

#[test]
fn no_subcommand_means_the_tui() -> Result<(), clap::Error> {
    let cli = parse(&[])?;
    assert!(cli.command.is_none());
    Ok(())
}

#[test]
fn socket_is_global() -> Result<(), clap::Error> {
    let cli = parse(&["ls", "--socket", "/tmp/s.sock"])?;
    assert_eq!(cli.socket, Some(PathBuf::from("/tmp/s.sock")));
    let cli = parse(&["--socket", "/tmp/t.sock", "daemon", "status"])?;
    assert_eq!(cli.socket, Some(PathBuf::from("/tmp/t.sock")));
    Ok(())
}

#[test]
fn send_takes_every_option() -> Result<(), clap::Error> {
    let cli = parse(&[
        "send", "-p", "web", "-c", "abc", "--model", "opus", "--detach", "--json", "hello", "world",
    ])?;
    let Some(Cmd::Send(args)) = cli.command else {
        panic!("not send: {:?}", cli.command);
    };
    assert_eq!(args.project.as_deref(), Some("web"));
    assert_eq!(args.session.as_deref(), Some("abc"));
    assert_eq!(args.model.as_deref(), Some("opus"));
    assert!(args.detach && args.json);
    assert_eq!(args.text, ["hello", "world"]);
    Ok(())
}

#[test]
fn send_accepts_dash_for_stdin_and_an_empty_root_slug() -> Result<(), clap::Error> {
    let cli = parse(&["send", "-p", "", "-"])?;
    let Some(Cmd::Send(args)) = cli.command else {
        panic!("not send: {:?}", cli.command);
    };
    // The root workspace is a real key: `-p ''` is Some(""), not absent.
    assert_eq!(args.project.as_deref(), Some(""));
    assert_eq!(args.text, ["-"]);
    Ok(())
}

#[test]
fn ls_scopes_conflict() -> Result<(), clap::Error> {
    assert!(parse(&["ls", "--archived", "--all"]).is_err());
    let cli = parse(&["ls", "-p", "web", "--archived", "--json"])?;
    let Some(Cmd::Ls(args)) = cli.command else {
        panic!("not ls: {:?}", cli.command);
    };
    assert_eq!(args.project.as_deref(), Some("web"));
    assert!(args.archived && args.json && !args.all);
    Ok(())
}

#[test]
fn daemon_actions() -> Result<(), clap::Error> {
    let cli = parse(&["daemon", "start", "--foreground"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Daemon {
            action: DaemonCmd::Start { foreground: true }
        })
    ));
    let cli = parse(&["daemon", "restart"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Daemon {
            action: DaemonCmd::Restart { foreground: false }
        })
    ));
    assert!(parse(&["daemon", "stop", "--foreground"]).is_err());
    assert!(parse(&["daemon"]).is_err());
    Ok(())
}

#[test]
fn project_show_set_rm_promote() -> Result<(), clap::Error> {
    let cli = parse(&["project", "show"])?;
    let Some(Cmd::Project {
        action: ProjectCmd::Show { slug, json: false },
    }) = cli.command
    else {
        panic!("not project show: {:?}", cli.command);
    };
    assert_eq!(slug, "", "no slug: the root workspace");
    let cli = parse(&[
        "project",
        "set",
        "web",
        "--status",
        "paused",
        "--max-spawn-depth",
        "2",
        "--unset",
        "model",
        "--unset",
        "drive-mode",
    ])?;
    let Some(Cmd::Project {
        action:
            ProjectCmd::Set {
                status,
                max_spawn_depth,
                unset,
                ..
            },
    }) = cli.command
    else {
        panic!("not project set: {:?}", cli.command);
    };
    assert_eq!(status, Some(ProjectStatusArg::Paused));
    assert_eq!(max_spawn_depth, Some(2));
    assert_eq!(unset, [ProjectKey::Model, ProjectKey::DriveMode]);
    assert!(parse(&["project", "set", "web", "--max-spawn-depth", "9"]).is_err());
    assert!(parse(&["project", "rm", "web", "--trash", "--delete-files"]).is_err());
    assert!(
        parse(&["project", "promote", "notes"]).is_err(),
        "--repo is required"
    );
    let cli = parse(&[
        "project",
        "add",
        "api",
        "--repo",
        "git@github.com:ana/api.git",
    ])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Project {
            action: ProjectCmd::Add { repo: Some(_), .. }
        })
    ));
    Ok(())
}

#[test]
fn project_add_and_ls() -> Result<(), clap::Error> {
    let cli = parse(&["project", "add", "web", "--path", "src/web"])?;
    let Some(Cmd::Project {
        action: ProjectCmd::Add { slug, path, .. },
    }) = cli.command
    else {
        panic!("not project add: {:?}", cli.command);
    };
    assert_eq!(slug, "web");
    assert_eq!(path, Some(PathBuf::from("src/web")));
    assert!(parse(&["project", "add"]).is_err());
    let cli = parse(&["project", "ls", "--json"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Project {
            action: ProjectCmd::Ls { json: true }
        })
    ));
    Ok(())
}

#[test]
fn session_commands_need_a_session() -> Result<(), clap::Error> {
    assert!(parse(&["tail"]).is_err());
    assert!(parse(&["cancel"]).is_err());
    assert!(parse(&["show"]).is_err());
    let cli = parse(&["tail", "s1", "--json", "--no-wait"])?;
    let Some(Cmd::Tail(args)) = cli.command else {
        panic!("not tail: {:?}", cli.command);
    };
    assert_eq!(args.session, "s1");
    assert!(
        args.json && !args.wait,
        "--no-wait is the default, still accepted"
    );
    let cli = parse(&["tail", "s1", "--wait"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Tail(TailArgs { wait: true, .. }))
    ));
    let cli = parse(&["tail", "s1", "--wait", "--no-wait"])?;
    assert!(
        matches!(cli.command, Some(Cmd::Tail(TailArgs { wait: false, .. }))),
        "the last one wins"
    );
    let cli = parse(&["show", "s2", "--json"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Show(ShowArgs { json: true, .. }))
    ));
    let cli = parse(&["cancel", "s3"])?;
    assert!(matches!(cli.command, Some(Cmd::Cancel(SessionArg { session })) if session == "s3"));
    assert!(parse(&["continue"]).is_err());
    let cli = parse(&["continue", "s4"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Continue(ContinueArgs { ref session, detach: false, json: false })) if session == "s4"
    ));
    let cli = parse(&["continue", "--detach", "--json", "s4"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Continue(ContinueArgs {
            detach: true,
            json: true,
            ..
        }))
    ));
    Ok(())
}

#[test]
fn later_commands_are_not_pretended() {
    assert!(parse(&["doctor"]).is_ok());
    // `trigger` is here, and wants one of its subcommands.
    assert!(parse(&["trigger"]).is_err());
    assert!(parse(&["trigger", "ls"]).is_ok());
}

fn trigger(args: &[&str]) -> Result<TriggerCmd, clap::Error> {
    let argv: Vec<&str> = std::iter::once("trigger")
        .chain(args.iter().copied())
        .collect();
    match parse(&argv)?.command {
        Some(Cmd::Trigger { action }) => Ok(action),
        other => panic!("not trigger: {other:?}"),
    }
}

fn trigger_add(args: &[&str]) -> Result<TriggerAddArgs, clap::Error> {
    let argv: Vec<&str> = std::iter::once("add").chain(args.iter().copied()).collect();
    match trigger(&argv)? {
        TriggerCmd::Add(args) => Ok(*args),
        other => panic!("not trigger add: {other:?}"),
    }
}

#[test]
fn trigger_ls_is_every_project_unless_one_is_named() -> Result<(), clap::Error> {
    let TriggerCmd::Ls(args) = trigger(&["ls"])? else {
        panic!("not trigger ls");
    };
    assert_eq!(args.project, None);
    assert!(!args.json);
    let TriggerCmd::Ls(args) = trigger(&["list", "-p", "", "--json"])? else {
        panic!("not trigger ls");
    };
    // The root workspace is a real key.
    assert_eq!(args.project.as_deref(), Some(""));
    assert!(args.json);
    Ok(())
}

#[test]
fn trigger_add_takes_every_option() -> Result<(), clap::Error> {
    let args = trigger_add(&[
        "nightly",
        "-p",
        "web",
        "--cron",
        "0 2 * * *",
        "--tz",
        "Europe/Berlin",
        "--missed",
        "run_once",
        "--resume",
        "--model",
        "haiku",
        "--disabled",
        "--json",
        "--prompt",
        "Check the backup.",
    ])?;
    assert_eq!(args.name, "nightly");
    assert_eq!(args.project.as_deref(), Some("web"));
    assert_eq!(args.cron.as_deref(), Some("0 2 * * *"));
    assert_eq!(args.tz.as_deref(), Some("Europe/Berlin"));
    assert_eq!(args.missed, Some(MissedArg::RunOnce));
    assert!(args.resume && args.disabled && args.json);
    assert_eq!(args.model.as_deref(), Some("haiku"));
    assert_eq!(args.prompt.as_deref(), Some("Check the backup."));
    assert_eq!((args.every, args.on, args.stdin), (None, None, None));

    let args = trigger_add(&[
        "docs",
        "--on",
        "file_changed",
        "--path",
        "docs/**",
        "--path",
        "*.md",
        "--debounce",
        "10",
        "-",
    ])?;
    assert_eq!(args.on, Some(HookEventArg::FileChanged));
    assert_eq!(args.paths, ["docs/**", "*.md"]);
    assert_eq!(args.debounce, Some(10));
    assert_eq!(args.stdin.as_deref(), Some("-"));
    assert_eq!(args.project, None);
    assert!(!args.resume && !args.disabled);

    let args = trigger_add(&["inbox", "--every", "15m", "--prompt-file", "p.md"])?;
    assert_eq!(args.every.as_deref(), Some("15m"));
    assert_eq!(args.prompt_file, Some(PathBuf::from("p.md")));
    // The dashed spellings are accepted too.
    let args = trigger_add(&["x", "--on", "turn-completed", "--prompt", "p"])?;
    assert_eq!(args.on, Some(HookEventArg::TurnCompleted));
    let args = trigger_add(&[
        "x", "--every", "1h", "--missed", "run-once", "--prompt", "p",
    ])?;
    assert_eq!(args.missed, Some(MissedArg::RunOnce));
    Ok(())
}

#[test]
fn trigger_add_is_exactly_one_of_cron_every_on() {
    // None, or two at once.
    assert!(trigger_add(&["x", "--prompt", "p"]).is_err());
    assert!(trigger_add(&["x", "--cron", "0 2 * * *", "--every", "1h", "--prompt", "p"]).is_err());
    assert!(trigger_add(&["x", "--every", "1h", "--on", "manual", "--prompt", "p"]).is_err());
    // What belongs to one kind is refused with another.
    for wrong in [
        &["--every", "1h", "--tz", "UTC"][..],
        &["--on", "manual", "--tz", "UTC"],
        &["--tz", "UTC"],
        &["--cron", "0 2 * * *", "--path", "docs/**"],
        &["--every", "1h", "--debounce", "3"],
        &["--on", "turn_failed", "--missed", "skip"],
        &["--on", "whenever"],
        &["--every", "1h", "--missed", "sometimes"],
    ] {
        let argv: Vec<&str> = ["x"]
            .iter()
            .chain(wrong)
            .chain(&["--prompt", "p"])
            .copied()
            .collect();
        assert!(trigger_add(&argv).is_err(), "{argv:?} should not parse");
    }
    assert!(
        trigger_add(&["--every", "1h", "--prompt", "p"]).is_err(),
        "no name"
    );
}

#[test]
fn trigger_add_takes_one_prompt_source() {
    assert!(trigger_add(&["x", "--every", "1h"]).is_err());
    assert!(trigger_add(&["x", "--every", "1h", "--prompt", "p", "-"]).is_err());
    assert!(trigger_add(&["x", "--every", "1h", "--prompt", "p", "--prompt-file", "f"]).is_err());
    // A stray word (an unquoted cron, a prompt without --prompt) is not taken for `-`.
    let err = trigger_add(&["x", "--cron", "0", "2", "--prompt", "p"]);
    assert!(err.is_err_and(|e| e.to_string().contains("quote an argument with spaces")));
    assert!(trigger_add(&["x", "--every", "1h", "Check it"]).is_err());
}

#[test]
fn trigger_rm_and_fire() -> Result<(), clap::Error> {
    assert!(trigger(&["rm"]).is_err());
    let TriggerCmd::Rm(args) = trigger(&["remove", "nightly", "-p", "web"])? else {
        panic!("not trigger rm");
    };
    assert_eq!(
        (args.name.as_str(), args.project.as_deref()),
        ("nightly", Some("web"))
    );

    assert!(trigger(&["fire"]).is_err());
    let TriggerCmd::Fire(args) = trigger(&["fire", "ci", "--message", "CI failed", "--json"])?
    else {
        panic!("not trigger fire");
    };
    assert_eq!(args.name, "ci");
    assert_eq!(args.project, None);
    assert_eq!(args.message.as_deref(), Some("CI failed"));
    assert!(args.json && args.stdin.is_none());
    let TriggerCmd::Fire(args) = trigger(&["fire", "ci", "-p", "", "-"])? else {
        panic!("not trigger fire");
    };
    assert_eq!(args.project.as_deref(), Some(""));
    assert_eq!(args.stdin.as_deref(), Some("-"));
    assert!(trigger(&["fire", "ci", "--message", "m", "-"]).is_err());
    assert!(trigger(&["fire", "ci", "CI failed"]).is_err());
    Ok(())
}

#[test]
fn flag_commands_take_sessions_and_subtree() -> Result<(), clap::Error> {
    for name in [
        "archive",
        "unarchive",
        "star",
        "unstar",
        "read",
        "unread",
        "detach",
        "attach",
    ] {
        assert!(parse(&[name]).is_err(), "{name} needs a session");
        let cli = parse(&[name, "s1", "s2", "--subtree"])?;
        let args = match cli.command {
            Some(
                Cmd::Archive(a)
                | Cmd::Unarchive(a)
                | Cmd::Star(a)
                | Cmd::Unstar(a)
                | Cmd::Read(a)
                | Cmd::Unread(a)
                | Cmd::Detach(a)
                | Cmd::Attach(a),
            ) => a,
            other => panic!("{name} parsed as {other:?}"),
        };
        assert_eq!(args.sessions, ["s1", "s2"]);
        assert!(args.subtree);
    }
    let cli = parse(&["archive", "s1"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Archive(UpdateArgs { subtree: false, .. }))
    ));
    Ok(())
}

#[test]
fn ls_files_takes_a_path_project_and_flags() -> Result<(), clap::Error> {
    let cli = parse(&["ls-files", "-p", "web", "src", "-a", "--json"])?;
    let Some(Cmd::LsFiles(args)) = cli.command else {
        panic!("not ls-files: {:?}", cli.command);
    };
    assert_eq!(args.path.as_deref(), Some("src"));
    assert_eq!(args.project.as_deref(), Some("web"));
    assert!(args.all && args.json && args.limit.is_none());
    Ok(())
}

#[test]
fn delete_fork_history_import() -> Result<(), clap::Error> {
    assert!(parse(&["delete"]).is_err());
    let cli = parse(&["delete", "-y", "--subtree", "s1"])?;
    let Some(Cmd::Delete(args)) = cli.command else {
        panic!("not delete: {:?}", cli.command);
    };
    assert!(args.yes && args.subtree);
    assert_eq!(args.sessions, ["s1"]);

    assert!(parse(&["fork"]).is_err());
    assert!(parse(&["fork", "s1", "s2"]).is_err());
    let cli = parse(&["fork", "s1", "--name", "try again", "--json"])?;
    let Some(Cmd::Fork(args)) = cli.command else {
        panic!("not fork: {:?}", cli.command);
    };
    assert_eq!(args.session, "s1");
    assert_eq!(args.name.as_deref(), Some("try again"));
    assert!(args.json);

    let cli = parse(&["history"])?;
    let Some(Cmd::History(args)) = cli.command else {
        panic!("not history: {:?}", cli.command);
    };
    // No -p: every project, not the root workspace.
    assert_eq!(args.project, None);
    assert!(!args.unattended && !args.json && !args.keep_unseen);
    assert_eq!(args.limit, None);
    let cli = parse(&[
        "history",
        "-p",
        "",
        "--unattended",
        "--limit",
        "500",
        "--json",
        "--keep-unseen",
    ])?;
    let Some(Cmd::History(args)) = cli.command else {
        panic!("not history: {:?}", cli.command);
    };
    assert_eq!(args.project.as_deref(), Some(""));
    assert!(args.unattended && args.json && args.keep_unseen);
    assert_eq!(args.limit, Some(500));
    assert!(parse(&["history", "--limit", "0"]).is_err());
    assert!(parse(&["history", "--limit", "501"]).is_err());

    let cli = parse(&["import", "-p", "web", "--path", "src/web", "--dry-run"])?;
    let Some(Cmd::Import(args)) = cli.command else {
        panic!("not import: {:?}", cli.command);
    };
    assert_eq!(args.project.as_deref(), Some("web"));
    assert_eq!(args.path, Some(PathBuf::from("src/web")));
    assert!(args.dry_run && !args.json);

    let cli = parse(&["provenance", "src/a.ts"])?;
    let Some(Cmd::Provenance(args)) = cli.command else {
        panic!("not provenance: {:?}", cli.command);
    };
    assert_eq!(args.file, PathBuf::from("src/a.ts"));
    assert_eq!(args.project, None);
    assert!(!args.json);
    let cli = parse(&["provenance", "-p", "web", "a.ts", "--json"])?;
    let Some(Cmd::Provenance(args)) = cli.command else {
        panic!("not provenance: {:?}", cli.command);
    };
    assert_eq!(args.project.as_deref(), Some("web"));
    assert!(args.json);
    assert!(parse(&["provenance"]).is_err());

    let cli = parse(&["blame", "-p", "web", "src/a.ts", "--json"])?;
    let Some(Cmd::Blame(args)) = cli.command else {
        panic!("not blame: {:?}", cli.command);
    };
    assert_eq!(args.file, PathBuf::from("src/a.ts"));
    assert_eq!(args.project.as_deref(), Some("web"));
    assert!(args.json);
    assert!(parse(&["blame"]).is_err());

    let cli = parse(&["files", "5f0c2d8e", "--turn", "0193f4c2", "--json"])?;
    let Some(Cmd::Files(args)) = cli.command else {
        panic!("not files: {:?}", cli.command);
    };
    assert_eq!(args.session, "5f0c2d8e");
    assert_eq!(args.turn.as_deref(), Some("0193f4c2"));
    assert_eq!(args.project, None);
    assert!(args.json);
    assert!(parse(&["files"]).is_err());

    let cli = parse(&["usage", "--subtree", "abc", "--all", "--top", "3", "--json"])?;
    let Some(Cmd::Usage(args)) = cli.command else {
        panic!("not usage: {:?}", cli.command);
    };
    assert_eq!(args.subtree.as_deref(), Some("abc"));
    assert!(args.all && args.json && !args.archived);
    assert_eq!(args.top, 3);
    assert!(parse(&["usage", "--all", "--archived"]).is_err());
    let cli = parse(&["notify", "--once"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Notify(NotifyArgs { once: true }))
    ));
    let cli = parse(&["send", "--preload", "hello"])?;
    let Some(Cmd::Send(args)) = cli.command else {
        panic!("not send: {:?}", cli.command);
    };
    assert!(args.preload);
    assert!(parse(&["send", "--preload", "-c", "abc", "hello"]).is_err());
    let cli = parse(&["send", "-a", "a.png", "--attach", "b.pdf", "look"])?;
    let Some(Cmd::Send(args)) = cli.command else {
        panic!("not send: {:?}", cli.command);
    };
    assert_eq!(
        args.attach,
        [PathBuf::from("a.png"), PathBuf::from("b.pdf")]
    );
    let cli = parse(&["attachment", "x.png", "-o", "out.png"])?;
    let Some(Cmd::Attachment(args)) = cli.command else {
        panic!("not attachment: {:?}", cli.command);
    };
    assert_eq!(
        (args.id.as_str(), args.output),
        ("x.png", Some(PathBuf::from("out.png")))
    );

    let cli = parse(&["git", "status", "--chat", "abc", "--subtree", "--json"])?;
    let Some(Cmd::Git {
        action: GitCmd::Status(args),
    }) = cli.command
    else {
        panic!("not git status: {:?}", cli.command);
    };
    assert_eq!(args.scope.chat.as_deref(), Some("abc"));
    assert!(args.scope.subtree && args.json);
    let cli = parse(&["git", "diff", "-p", "web", "--turn", "s:j", "src/a.ts"])?;
    let Some(Cmd::Git {
        action: GitCmd::Diff(args),
    }) = cli.command
    else {
        panic!("not git diff: {:?}", cli.command);
    };
    assert_eq!(args.scope.turn.as_deref(), Some("s:j"));
    assert_eq!(args.path.as_deref(), Some("src/a.ts"));
    let cli = parse(&["git", "commit", "-m", "msg", "a.txt", "b.txt"])?;
    let Some(Cmd::Git {
        action: GitCmd::Commit(args),
    }) = cli.command
    else {
        panic!("not git commit: {:?}", cli.command);
    };
    assert_eq!(args.message, "msg");
    assert_eq!(args.paths, ["a.txt", "b.txt"]);
    assert!(
        parse(&["git", "commit", "a.txt"]).is_err(),
        "a message is required"
    );
    assert!(parse(&["git", "status", "--subtree"]).is_err());
    assert!(parse(&["git", "status", "--chat", "a", "--turn", "a:b"]).is_err());
    let cli = parse(&["git", "commit", "-m", "msg", "--push"])?;
    assert!(matches!(
        cli.command,
        Some(Cmd::Git {
            action: GitCmd::Commit(GitCommitArgs { push: true, .. })
        })
    ));
    let cli = parse(&["git", "push", "-p", "web", "--json"])?;
    let Some(Cmd::Git {
        action: GitCmd::Push(args),
    }) = cli.command
    else {
        panic!("not git push: {:?}", cli.command);
    };
    assert_eq!(args.project.as_deref(), Some("web"));
    assert!(args.json && !args.data_root);
    assert!(parse(&["git", "push", "--data-root"]).is_ok());
    assert!(parse(&["git", "push", "-p", "web", "--data-root"]).is_err());
    Ok(())
}

#[test]
fn approvals_list_and_answer_and_ls_every_project() -> Result<(), clap::Error> {
    let cli = parse(&["approvals", "--json"])?;
    let Some(Cmd::Approvals(args)) = cli.command else {
        panic!("not approvals: {:?}", cli.command);
    };
    assert!(args.json && args.action.is_none());
    let cli = parse(&["approvals", "deny", "3f9c", "81ab", "--message", "no"])?;
    let Some(Cmd::Approvals(ApprovalsArgs {
        action: Some(ApprovalsCmd::Deny { ids, message }),
        ..
    })) = cli.command
    else {
        panic!("not approvals deny: {:?}", cli.command);
    };
    assert_eq!(
        (ids.ids, message.as_deref()),
        (vec!["3f9c".into(), "81ab".into()], Some("no"))
    );
    assert!(
        parse(&["approvals", "always"]).is_err(),
        "an id is required"
    );
    assert!(parse(&["approvals", "allow", "--message", "x", "3f9c"]).is_err());
    let cli = parse(&["ls", "-A", "--archived"])?;
    let Some(Cmd::Ls(args)) = cli.command else {
        panic!("not ls: {:?}", cli.command);
    };
    assert!(args.all_projects && args.archived);
    assert!(
        parse(&["ls", "-A", "-p", "web"]).is_err(),
        "one project or all"
    );
    let cli = parse(&[
        "project",
        "set",
        "web",
        "--disallow",
        "Bash(mkdir:*)",
        "--allow",
        "Read",
    ])?;
    let Some(Cmd::Project {
        action: ProjectCmd::Set {
            allow, disallow, ..
        },
    }) = cli.command
    else {
        panic!("not project set: {:?}", cli.command);
    };
    assert_eq!(
        (allow, disallow),
        (vec!["Read".to_owned()], vec!["Bash(mkdir:*)".to_owned()])
    );
    Ok(())
}
