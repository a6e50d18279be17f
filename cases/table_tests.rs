//! Properties of the shipped case table that the library's stages rely on, checked through the
//! library's public API (no GPU): the declared bounds, the re-check's exemptions, the launches, the
//! vendor references and the host-bound trials.

use crate::all;
use kernelgate::Case;
use kernelgate::case::{Param, Step};
use kernelgate::model::{Ceiling, Ceilings, Measured};

/// The H200's ceilings as the library's own unit tests fix them (`ceilings::tests::fixture`): the
/// ridge is 60000 / 4223 = 14.2 FLOP/byte.
fn h200() -> Ceilings {
    let m = |ceiling, value| Measured { ceiling, value, spread: 0.002, samples: 20, work: 1.0 };
    Ceilings {
        wall_s: 0.0,
        measured: vec![
            m(Ceiling::DramRead, 3800.0),
            m(Ceiling::DramWrite, 3900.0),
            m(Ceiling::Copy, 4223.206434886277),
            m(Ceiling::Fma, 60000.0),
            m(Ceiling::Shared, 30000.0),
        ],
    }
}

/// A declared ceiling is used as declared, and the reduction, histogram and matmul families
/// declare theirs; every other case is derived: with the fixture's ridge (14.2 FLOP/byte) the
/// divergence (64 FLOP/byte) and occupancy (27 and 31) families are FMA-bound, and every other
/// case memory-bound.
#[test]
fn the_case_table_declares_read_only_and_compute_bound_families() {
    let c = h200();
    for case in all() {
        let b = kernelgate::ceilings::bound(case.bound, case.bytes, case.flops, &c).map(|b| b.ceiling);
        if let Some(declared) = case.bound {
            assert_eq!(b, Some(declared), "{}", case.name());
        }
        let expected = match case.family {
            "reduction" | "histogram" => Some(Ceiling::DramRead),
            "matmul" => Some(Ceiling::Fma),
            _ if case.bound.is_some() => case.bound,
            "divergence" | "occupancy" => Some(Ceiling::Fma),
            _ if case.bytes == 0 => None,
            _ => Some(Ceiling::Copy),
        };
        assert_eq!(b, expected, "{}", case.name());
        assert!(
            case.bound.is_some() || !matches!(case.family, "reduction" | "histogram" | "matmul"),
            "{}",
            case.name()
        );
    }
}

/// A copy into an input would make the next launch start from other data than the reference's:
/// such a program could not be re-checked either.
#[test]
fn no_copy_of_a_rechecked_program_overwrites_an_input() {
    let mut every = all();
    every.extend(kernelgate::case::planted::cases());
    for c in every.iter().filter(|c| kernelgate::recheck::not_rechecked(c).is_none()) {
        for step in &c.steps {
            if let Step::Copy { to, .. } = step {
                let into = &c.params[*to];
                let input = matches!(into, Param::In { .. } | Param::Host { init: Some(_), .. });
                assert!(!input, "{}: a copy into parameter #{to} ({into:?}), an input", c.name());
            }
        }
    }
}

/// Every case with a `Param::InOut` is exempt from the re-check, and only those; the suite's own
/// in-place programs are among them.
#[test]
fn programs_that_write_their_inputs_in_place_are_not_rechecked_and_say_why() {
    let not_rechecked = kernelgate::recheck::not_rechecked;
    let mut in_place = Vec::new();
    for c in all() {
        let updates_an_input = c.params.iter().any(|p| matches!(p, Param::InOut { .. }));
        assert_eq!(not_rechecked(&c).is_some(), updates_an_input, "{}: {:?}", c.name(), not_rechecked(&c));
        if updates_an_input {
            in_place.push(c.name());
        }
    }
    assert!(in_place.iter().any(|n| n.starts_with("launch/")), "{in_place:?}");
    assert!(in_place.iter().any(|n| n.starts_with("vectorization/saxpy")), "{in_place:?}");
    let why = not_rechecked(all().iter().find(|c| c.family == "launch").unwrap()).unwrap();
    assert!(why.contains("parameter #0 is updated in place (Param::InOut)"), "{why}");
}

#[test]
fn launches_come_from_the_case_table() {
    let every = kernelgate::resources::launches(&all());
    assert!(!every.is_empty());
    for l in &every {
        assert!((32..=1024).contains(&l.block), "{l:?}");
    }
    let naive =
        every.iter().find(|l| l.kernel == crate::k::transpose::transpose_naive).expect("transpose_naive is launched");
    assert_eq!(naive.block, 32 * 8, "TILE_DIM x BLOCK_ROWS");
}

#[test]
fn the_case_table_names_cub_and_cublas() {
    use kernelgate::model::VendorReference;
    let refs = kernelgate::report::vendor::references(&all());
    assert!(refs.contains(&VendorReference { trial: "reduction/cub/67108864".into(), vendor: "CUB" }));
    assert!(refs.iter().any(|r| r.trial.starts_with("histogram/cub/") && r.vendor == "CUB"));
    assert!(refs.iter().any(|r| r.trial.starts_with("matmul/cublas/") && r.vendor == "cuBLAS"));
}

#[test]
fn pageable_copies_are_host_bound_and_nothing_else_in_the_suite_is() {
    let bound: Vec<String> = all().iter().filter(|c| c.host_bound().is_some()).map(Case::name).collect();
    assert_eq!(bound, ["transfers/d2h_pageable/16777216", "transfers/h2d_pageable/16777216"]);
    let why = all().iter().find_map(Case::host_bound).unwrap();
    assert!(why.contains("pageable host memory") && why.contains("the host's"), "{why}");
}

#[test]
fn a_case_that_copies_host_memory_claims_so() {
    use kernelgate::guard::Claim;
    let every = all();
    let h2d = every.iter().find(|c| c.name() == "transfers/h2d_pinned/16777216").unwrap();
    assert!(Claim::of(h2d, 1e-3, None).host_memory);
    let copy = every.iter().find(|c| c.name() == "coalescing/copy/67108864").unwrap();
    let claimed = Claim::of(copy, 2e-4, Some(0.01));
    assert!(!claimed.host_memory);
    assert_eq!((claimed.bytes, claimed.flops), (536_870_912, 0));
}

/// The facts the `kernelgate` program reads of this table (`kernelgate::case::facts`) hold what
/// the table says.
#[test]
fn the_facts_of_the_table_hold_its_host_bound_trials_and_references() {
    let facts = kernelgate::case::facts::Facts::of(&all(), crate::BUILD.inputs);
    for c in all() {
        assert_eq!(facts.host_bound(&c.name()), c.host_bound(), "{}", c.name());
    }
    assert_eq!(facts.vendors(), kernelgate::report::vendor::references(&all()));
    assert_eq!(facts.launches(), kernelgate::resources::launches(&all()));
}
