//! The measured ceilings of one GPU (what the machine can do under the suite's own conditions) and
//! the ceiling a trial is judged against: plain data, made by `crate::ceilings`.

/// One measured limit of the machine. The rates are the roofs of the roofline model (Williams,
/// Waterman & Patterson 2009, "Roofline: an insightful visual performance model for multicore
/// architectures", CACM 52(4)); the two launch times are floors of time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Ceiling {
    /// Device-memory read bandwidth, GB/s: a float4 grid-stride read, L2 flushed before each sample.
    DramRead,
    /// Device-memory write bandwidth, GB/s: float4 grid-stride stores, L2 flushed before each sample.
    DramWrite,
    /// Device-to-device copy bandwidth, GB/s counting bytes read plus bytes written (`cuMemcpyDtoD`).
    Copy,
    /// fp32 FMA throughput, GFLOP/s (an FMA counts 2 FLOP).
    Fma,
    /// Shared-memory load bandwidth, GB/s: conflict-free 128-bit loads.
    Shared,
    /// Time per launch of back-to-back launches of an empty kernel, seconds.
    Launch,
    /// Event-to-event time of one empty kernel launched after the L2 flush, seconds: the shortest
    /// median a one-launch trial can show.
    SingleLaunch,
}

impl Ceiling {
    /// Every ceiling, in the order the stage measures and prints them.
    pub const ALL: [Ceiling; 7] = [
        Ceiling::DramRead,
        Ceiling::DramWrite,
        Ceiling::Copy,
        Ceiling::Fma,
        Ceiling::Shared,
        Ceiling::Launch,
        Ceiling::SingleLaunch,
    ];

    /// The name in files and the table: `dram_read`, `dram_write`, `copy`, `fma`, `shared`,
    /// `launch`, `single_launch`.
    pub fn name(self) -> &'static str {
        match self {
            Ceiling::DramRead => "dram_read",
            Ceiling::DramWrite => "dram_write",
            Ceiling::Copy => "copy",
            Ceiling::Fma => "fma",
            Ceiling::Shared => "shared",
            Ceiling::Launch => "launch",
            Ceiling::SingleLaunch => "single_launch",
        }
    }

    /// The ceiling named `name` ([`Ceiling::name`]).
    pub fn from_name(name: &str) -> Option<Ceiling> {
        Ceiling::ALL.into_iter().find(|c| c.name() == name)
    }

    /// The unit of its value: `GB/s` (1e9 bytes/s), `GFLOP/s` (1e9 FLOP/s) or `s`.
    pub fn unit(self) -> &'static str {
        match self {
            Ceiling::DramRead | Ceiling::DramWrite | Ceiling::Copy | Ceiling::Shared => "GB/s",
            Ceiling::Fma => "GFLOP/s",
            Ceiling::Launch | Ceiling::SingleLaunch => "s",
        }
    }

    /// Whether a trial can be bound by it: the rates (bytes or FLOPs per second). The launch times
    /// are recorded for guards, not divided into a trial's rate.
    pub fn is_rate(self) -> bool {
        !matches!(self, Ceiling::Launch | Ceiling::SingleLaunch)
    }

    /// Whether its value is a rate of bytes (the trial's declared bytes are divided by its median).
    pub fn is_bandwidth(self) -> bool {
        self.unit() == "GB/s"
    }

    /// The run-CSV statistic of a trial bound by it: `pct_of_<name>_ceiling` (%); `None` for the
    /// launch times ([`Ceiling::is_rate`]).
    pub fn pct_statistic(self) -> Option<&'static str> {
        Some(match self {
            Ceiling::DramRead => "pct_of_dram_read_ceiling",
            Ceiling::DramWrite => "pct_of_dram_write_ceiling",
            Ceiling::Copy => "pct_of_copy_ceiling",
            Ceiling::Fma => "pct_of_fma_ceiling",
            Ceiling::Shared => "pct_of_shared_ceiling",
            Ceiling::Launch | Ceiling::SingleLaunch => return None,
        })
    }

    /// The history's name for the ceiling's own measured value, stored with every trial of the run
    /// that measured it (`crate::history::of_run`): `<name>_ceiling` in [`Ceiling::unit`]
    /// (`copy_ceiling`, GB/s; `fma_ceiling`, GFLOP/s), so that a report can draw the roofs a trial
    /// ran under; `None` for the launch times ([`Ceiling::is_rate`]).
    pub fn value_statistic(self) -> Option<&'static str> {
        Some(match self {
            Ceiling::DramRead => "dram_read_ceiling",
            Ceiling::DramWrite => "dram_write_ceiling",
            Ceiling::Copy => "copy_ceiling",
            Ceiling::Fma => "fma_ceiling",
            Ceiling::Shared => "shared_ceiling",
            Ceiling::Launch | Ceiling::SingleLaunch => return None,
        })
    }

    /// The ceiling whose [`Ceiling::value_statistic`] is `name`.
    pub fn from_value_statistic(name: &str) -> Option<Ceiling> {
        Ceiling::ALL.into_iter().find(|c| c.value_statistic() == Some(name))
    }
}

impl std::fmt::Display for Ceiling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One ceiling as measured on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Measured {
    /// Which.
    pub ceiling: Ceiling,
    /// Its value in [`Ceiling::unit`]: work per sample / median sample time (rates), or median time
    /// per launch (launch times).
    pub value: f64,
    /// Relative spread: the median absolute deviation of the sample times over their median (a
    /// fraction, unscaled MAD), so that "beyond its measured spread" is `value x (1 + k x spread)`.
    pub spread: f64,
    /// Timed samples (after the untimed warm-up ones).
    pub samples: usize,
    /// Work of one sample: bytes (bandwidths), FLOPs (`fma`) or launches (launch times).
    pub work: f64,
}

/// The ceilings measured on one GPU at the start of a run; empty where none were measured (a child
/// process under ncu or compute-sanitizer times nothing).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Ceilings {
    /// One entry per measured ceiling, in [`Ceiling::ALL`] order.
    pub measured: Vec<Measured>,
    /// Wall time of the whole measurement (compiles included), seconds; 0 when none.
    pub wall_s: f64,
}

impl Ceilings {
    /// The measurement of `ceiling`, if it was measured.
    pub fn get(&self, ceiling: Ceiling) -> Option<&Measured> {
        self.measured.iter().find(|m| m.ceiling == ceiling)
    }

    /// The value of `ceiling` in its unit, if it was measured.
    pub fn value(&self, ceiling: Ceiling) -> Option<f64> {
        self.get(ceiling).map(|m| m.value)
    }
}

/// The ceiling one trial is judged against, with its measured value.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Bound {
    /// Which ceiling ([`Ceiling::is_rate`]).
    pub ceiling: Ceiling,
    /// Its measured value on the trial's GPU, in [`Ceiling::unit`].
    pub value: f64,
    /// Its measured relative spread ([`Measured::spread`]).
    pub spread: f64,
    /// Declared by the case (`Case::bound_by`), not derived from its arithmetic intensity.
    pub declared: bool,
}
