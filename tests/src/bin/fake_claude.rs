//! `fake-claude`: the scripted Claude Code stand-in (see `paddock_tests::fake_claude`).

fn main() {
    std::process::exit(paddock_tests::fake_claude::main());
}
