//! What the fuzz targets share: a deterministic generator, a
//! structure-aware mutator over seeds and a dictionary, and the tally of
//! outcomes and findings per target.

use std::time::Instant;

/// xorshift64*: small, fast, and the same inputs for the same seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One input from the seeds: a few stacked mutations (byte flips, inserted
/// dictionary tokens, deletions, duplications, splices with another seed,
/// truncation).
pub fn mutate(rng: &mut Rng, seeds: &[&[u8]], dictionary: &[&[u8]]) -> Vec<u8> {
    let seed = rng.below(seeds.len());
    mutate_seed(rng, seeds, seed, dictionary)
}

/// [`mutate`] from `seeds[seed]`: one mutation half the time, so that many
/// inputs stay close to valid and reach the deep paths.
pub fn mutate_seed(rng: &mut Rng, seeds: &[&[u8]], seed: usize, dictionary: &[&[u8]]) -> Vec<u8> {
    let mut data = seeds[seed].to_vec();
    let rounds = if rng.chance(50) { 1 } else { 1 + rng.below(4) };
    for _ in 0..rounds {
        let at = rng.below(data.len() + 1);
        match rng.below(7) {
            0 if !data.is_empty() => {
                let i = at.min(data.len() - 1);
                data[i] ^= 1 << rng.below(8);
            }
            1 => {
                let token = rng.pick(dictionary);
                data.splice(at..at, token.iter().copied());
            }
            2 if !data.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(data.len());
                data.drain(at.min(end)..end);
            }
            3 if !data.is_empty() => {
                let start = rng.below(data.len());
                let end = (start + 1 + rng.below(32)).min(data.len());
                let copy = data[start..end].to_vec();
                data.splice(at..at, copy);
            }
            4 => {
                let other = rng.pick(seeds);
                let from = rng.below(other.len() + 1);
                data.truncate(at);
                data.extend_from_slice(&other[from..]);
            }
            5 => data.truncate(at),
            _ => {
                let b = (rng.next() & 0xff) as u8;
                data.insert(at, b);
            }
        }
        if data.len() > 64 * 1024 {
            data.truncate(64 * 1024);
        }
    }
    data
}

pub struct Tally {
    pub name: &'static str,
    pub inputs: u64,
    /// The first findings (at most 20), for the report.
    pub findings: Vec<String>,
    /// All findings, panics included.
    pub found: u64,
    outcomes: std::collections::BTreeMap<String, u64>,
    started: Instant,
}

impl Tally {
    pub fn new(name: &'static str) -> Tally {
        Tally { name, inputs: 0, findings: Vec::new(), found: 0, outcomes: Default::default(), started: Instant::now() }
    }

    pub fn count(&mut self, outcome: String) {
        self.inputs += 1;
        *self.outcomes.entry(outcome).or_default() += 1;
    }

    pub fn finding(&mut self, what: String) {
        self.found += 1;
        if self.findings.len() < 20 {
            self.findings.push(what);
        }
    }

    /// Input `input` crashed the target: a finding, counted as `PANIC`.
    pub fn panic(&mut self, input: &str) {
        self.finding(format!("panic on {input:?}"));
        self.count("PANIC".into());
    }

    /// The outcome of a check of `input` run under [`guarded`]: counted,
    /// a broken invariant or a panic a finding.
    pub fn checked(&mut self, input: &str, outcome: Option<Result<String, String>>) {
        match outcome {
            Some(Ok(outcome)) => self.count(outcome),
            Some(Err(broken)) => {
                self.finding(format!("{broken} (input {input:?})"));
                self.count("BROKEN".into());
            }
            None => self.panic(input),
        }
    }

    pub fn panics(&self) -> u64 {
        self.outcomes.get("PANIC").copied().unwrap_or(0)
    }

    pub fn report(&self) {
        let secs = self.started.elapsed().as_secs_f64();
        println!(
            "{}: {} inputs in {:.0} s ({:.0}/s), {} crashes, {} findings",
            self.name,
            self.inputs,
            secs,
            self.inputs as f64 / secs,
            self.panics(),
            self.found
        );
        let mut top: Vec<_> = self.outcomes.iter().collect();
        top.sort_by(|a, b| b.1.cmp(a.1));
        for (outcome, n) in top.iter().take(8) {
            println!("  {n:>9}  {outcome}");
        }
        for f in &self.findings {
            println!("  FINDING: {f}");
        }
    }
}

/// `f()` under `catch_unwind`: `None` when it panicked.
pub fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok()
}

/// The seeds as byte slices.
pub fn bytes_of<S: AsRef<[u8]>>(seeds: &[S]) -> Vec<&[u8]> {
    seeds.iter().map(AsRef::as_ref).collect()
}

/// `n` texts mutated from `seeds` with `dict`, each checked by `check`.
pub fn fuzz_text(
    name: &'static str,
    n: u64,
    rng: &mut Rng,
    seeds: &[&str],
    dict: &[&str],
    check: fn(&str) -> Result<String, String>,
) -> Tally {
    let (seeds, dict) = (bytes_of(seeds), bytes_of(dict));
    let mut tally = Tally::new(name);
    for _ in 0..n {
        let text = String::from_utf8_lossy(&mutate(rng, &seeds, &dict)).into_owned();
        tally.checked(&text, guarded(|| check(&text)));
    }
    tally
}
