//! `paddock provenance`, `files`, `ls-files` and `blame`: who wrote what.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct ProvenanceArgs {
    /// The file
    pub file: PathBuf,
    /// The project [default: the one whose directory holds FILE]; FILE is then relative to its
    /// directory
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print the provenance as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct FilesArgs {
    /// The chat's session id, or a unique prefix of it (the 8 characters `paddock ls` shows)
    pub session: String,
    /// Only this turn (its job id, as `paddock history --json` or `paddock files --json` give it)
    #[arg(long, value_name = "JOB")]
    pub turn: Option<String>,
    /// The chat's project [default: found from the chat]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print the files as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct LsFilesArgs {
    /// The directory, relative to the project's directory [default: its top]
    pub path: Option<String>,
    /// The project [default: the root workspace]
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Also list names starting with a dot (.git among them)
    #[arg(short = 'a', long)]
    pub all: bool,
    /// At most this many entries (default and cap 2000)
    #[arg(long, value_name = "N")]
    pub limit: Option<u32>,
    /// Print the listing as one JSON object
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Args)]
pub struct BlameArgs {
    /// The file (a text file of at most 4 MiB)
    pub file: PathBuf,
    /// The project [default: the one whose directory holds FILE]; FILE is then relative to its
    /// directory
    #[arg(short = 'p', long = "project", value_name = "SLUG")]
    pub project: Option<String>,
    /// Print the blame as one JSON object
    #[arg(long)]
    pub json: bool,
}
