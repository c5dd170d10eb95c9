//! Fuzzing on stable Rust (no cargo-fuzz, no nightly), in process: the
//! streamed tool-call assembly, HTML → text, the money parser,
//! `normalize_compare`'s raw values, the Python-source parser of client-tool
//! registration and the local API's request bodies. A deterministic
//! generator mutates real seeds (a structure-aware mutator: dictionary
//! tokens, splices between seeds, truncations); each input runs under
//! `catch_unwind` and its invariants are checked. A panic or a broken
//! invariant is a finding: the program prints the first few and exits
//! non-zero.
//!
//! `make fuzz` (or `cargo run --profile fuzz -p halley --example fuzz -- [N] [SEED]`):
//! N inputs in all (10,000,000 by default), shared by speed so that the
//! whole budget takes about a quarter hour on two loaded cores: 41 % each to
//! the stream assembly and the money parser, 8 % to `normalize_compare`, 4 %
//! to the Python parser, 3 % each to the API (a real router and store) and
//! HTML (whole pages). A fourth argument runs only the targets whose name
//! contains it. Not part of CI; every finding becomes a unit test.

mod api;
mod kit;
mod parsers;

use anyhow::Context;

use crate::kit::{Rng, Tally};

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().map(|a| a.parse()).transpose().context("N: a number of inputs")?.unwrap_or(10_000_000);
    let seed: u64 = args.next().map(|a| a.parse()).transpose().context("SEED: a number")?.unwrap_or(0x4841_4c4c_4559);
    let only: Option<String> = args.next();
    // A panic is a finding, counted by the targets: not a message per input.
    std::panic::set_hook(Box::new(|_| {}));
    let mut rng = Rng(seed | 1);
    let share = |percent: u64| n * percent / 100;
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    let mut tallies: Vec<Tally> = Vec::new();
    let mut run = |name: &str, t: &mut dyn FnMut(&mut Rng) -> anyhow::Result<Tally>| -> anyhow::Result<()> {
        if wanted(name) {
            let tally = t(&mut rng)?;
            tally.report();
            tallies.push(tally);
        }
        Ok(())
    };
    run("stream", &mut |rng| Ok(parsers::fuzz_stream(share(41), rng)))?;
    run("html", &mut |rng| Ok(parsers::fuzz_html(share(3), rng)))?;
    run("money", &mut |rng| Ok(parsers::fuzz_money(share(41), rng)))?;
    run("compare", &mut |rng| Ok(parsers::fuzz_compare(share(8), rng)))?;
    run("python", &mut |rng| Ok(api::fuzz_python(share(4), rng)))?;
    run("api", &mut |rng| {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
        runtime.block_on(api::fuzz_api(share(3), rng))
    })?;
    let inputs: u64 = tallies.iter().map(|t| t.inputs).sum();
    let found: u64 = tallies.iter().map(|t| t.found).sum();
    println!("{inputs} inputs in all, {found} findings (seed {seed})");
    if found == 0 { Ok(()) } else { anyhow::bail!("findings (seed {seed}): see above") }
}
