//! `kernelgate`: the commands that are not test runs.
//!
//! `kernelgate import-ncu FILE [--csv]` reads an ncu CSV (raw or details page, any ncu version
//! kernelgate knows) or a `.ncu-rep` (through `ncu --import`) and prints the normalized metrics per
//! kernel, so that existing ncu captures enter kernelgate.

use clap::{Parser, Subcommand};
use kernelgate::ncu::import;
use std::path::PathBuf;
use std::process::ExitCode;

/// Regression testing for CUDA kernels: the commands besides `cargo test`.
#[derive(Debug, Parser)]
#[command(name = "kernelgate", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the metrics of an ncu capture, normalized to base units, per kernel.
    ImportNcu {
        /// An ncu CSV file (`--csv`, raw or details page) or an `.ncu-rep` report.
        file: PathBuf,
        /// Print CSV (id, kernel, nvtx, metric, value, unit) instead of a table.
        #[arg(long)]
        csv: bool,
        /// The ncu executable used to read `.ncu-rep` files.
        #[arg(long, env = "KERNELGATE_NCU_PATH", default_value = "ncu")]
        ncu: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::ImportNcu { file, csv, ncu } => import::load(&file, &ncu).and_then(|report| {
            print!("{}", if csv { import::to_csv(&report)? } else { import::to_table(&report) });
            Ok(())
        }),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kernelgate: {e}");
            ExitCode::FAILURE
        }
    }
}
