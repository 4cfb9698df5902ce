//! Benchmarks (tooling, not part of the binary): the metric kernels and the
//! CSV writer on 1,000,000 simulated responses (`cargo bench --bench
//! metrics`; `cargo bench --bench metrics -- kappa` for one). Reads and
//! writes no files; must not change any library code path it measures.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark prints"
)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rsmreport_cli::simulate::{generate, SimulationSpec};
use rsmreport_core::table::{Column, Frame, Values};
use rsmreport_io::output::write::to_delimited;
use rsmreport_metrics::agreement::kappa;
use rsmreport_metrics::association::pearson;
use rsmreport_metrics::block::{metric_block, DiffMethod};
use rsmreport_metrics::fairness::fairness_analysis;
use rsmreport_metrics::prmse::true_score_basis;
use std::hint::black_box;

const N: usize = 1_000_000;

struct Data {
    h1: Vec<f64>,
    h2: Vec<f64>,
    system: Vec<f64>,
    codes: Vec<u32>,
    labels: Vec<String>,
    ids: Vec<Option<rsmreport_core::table::Text>>,
}

fn data() -> Data {
    let spec = SimulationSpec {
        n: N,
        seed: 7,
        ..Default::default()
    };
    let table = generate(&spec).expect("a valid spec");
    let numeric = |name: &str| table.column(name).expect(name).values.to_numeric();
    let labels: Vec<String> = spec.subgroups[0]
        .levels
        .iter()
        .map(|l| l.name.clone())
        .collect();
    let Values::Text(l1) = &table.column("L1").expect("L1").values else {
        panic!("L1 is text");
    };
    let codes = l1
        .iter()
        .map(|v| {
            let v = v.as_deref().expect("present");
            labels.iter().position(|l| l == v).expect("a level") as u32
        })
        .collect();
    let Values::Text(ids) = &table.column("response_id").expect("ids").values else {
        panic!("ids are text");
    };
    Data {
        h1: numeric("h1"),
        h2: numeric("h2"),
        system: numeric("system"),
        codes,
        labels,
        ids: ids.clone(),
    }
}

fn kernels(c: &mut Criterion) {
    let d = data();
    let trimmed: Vec<f64> = d.system.iter().map(|x| x.clamp(0.5002, 6.4998)).collect();
    let mut g = c.benchmark_group("1M");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N as u64));

    g.bench_function("metric_block", |b| {
        b.iter(|| metric_block(black_box(&d.h1), black_box(&trimmed), DiffMethod::Unpooled))
    });
    g.bench_function("kappa", |b| {
        b.iter(|| kappa(black_box(&d.h1), black_box(&trimmed)))
    });
    g.bench_function("pearson", |b| {
        b.iter(|| pearson(black_box(&d.h1), black_box(&trimmed)))
    });
    g.bench_function("prmse_basis_and_evaluate", |b| {
        b.iter(|| {
            let basis = true_score_basis(&[black_box(&d.h1), black_box(&d.h2)], None);
            basis.evaluate(black_box(&trimmed))
        })
    });
    g.bench_function("fairness_analysis", |b| {
        b.iter(|| {
            fairness_analysis(
                black_box(&d.codes),
                black_box(&d.labels),
                black_box(&d.h1),
                black_box(&trimmed),
            )
        })
    });
    let frame = Frame::new(
        "pred_processed",
        None,
        vec![
            Column::new("spkitemid", Values::Text(d.ids.clone())),
            Column::new("sc1", Values::Float(d.h1.clone())),
            Column::new("raw", Values::Float(d.system.clone())),
            Column::new("raw_trim", Values::Float(trimmed.clone())),
            Column::new(
                "raw_trim_round",
                Values::Float(trimmed.iter().map(|x| x.round_ties_even()).collect()),
            ),
        ],
    );
    g.bench_function("csv_writer_5_columns", |b| {
        b.iter(|| to_delimited(black_box(&frame), b','))
    });
    g.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
