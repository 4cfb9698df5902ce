//! Compiles the binary's command line (`src/main.rs`, `src/cli/`) into
//! the extension without its global allocator: `cfg(rsmreport_embedded)`.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(rsmreport_embedded)");
    println!("cargo::rustc-cfg=rsmreport_embedded");
    println!("cargo::rerun-if-changed=build.rs");
}
