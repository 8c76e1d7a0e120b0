//! Tests of `workload` (the library's `src/workload.rs`) through the public API.

use blox_sia::*;
use std::path::Path;

#[test]
fn reads_the_three_time_formats() {
    let t = "name,time,application,num_replicas,batch_size\n\
             cifar10-0,30,cifar10,4,1024\n\
             bert-1,401.0,bert,2,24\n\
             deepspeech2-2,487.661836,deepspeech2,4,80\n";
    let w = parse_sia_workload(Path::new("w.csv"), t).unwrap();
    assert_eq!(w.len(), 3);
    assert_eq!(w[0].time, 30.0);
    assert_eq!(w[1].time, 401.0);
    assert_eq!(w[2].time, 487.661836);
    assert_eq!((w[2].num_replicas, w[2].batch_size, w[2].line), (4, 80, 4));
    assert_eq!(w[1].application, "bert");
}

/// Sia's `category` column (§4.5): `adaptive` (or empty) runs, `rigid` and `scale-gpus`
/// are refused naming the line, not run as adaptive jobs.
#[test]
fn only_adaptive_job_categories_are_taken() {
    let h = "name,time,application,num_replicas,batch_size,category\n";
    let ok = format!("{h}a,0,cifar10,4,1024,adaptive\nb,1,cifar10,4,1024,\n");
    assert_eq!(
        parse_sia_workload(Path::new("w.csv"), &ok).unwrap().len(),
        2
    );
    for cat in ["rigid", "scale-gpus"] {
        let t = format!("{h}a,0,cifar10,4,1024,adaptive\nb,1,bert,2,24,{cat}\n");
        let e = parse_sia_workload(Path::new("w.csv"), &t).unwrap_err();
        assert_eq!(e.line, 3, "{e}");
        assert!(
            e.message.contains("`category`") && e.message.contains(cat),
            "{e}"
        );
    }
}

#[test]
fn bad_rows_name_file_line_and_field() {
    let h = "name,time,application,num_replicas,batch_size\n";
    let e = parse_sia_workload(Path::new("w.csv"), &format!("{h}a,x,cifar10,4,8\n")).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(
        e.to_string().contains("w.csv:2") && e.message.contains("`time`"),
        "{e}"
    );
    let e = parse_sia_workload(Path::new("w.csv"), &format!("{h}a,1,cifar10,0,8\n")).unwrap_err();
    assert!(e.message.contains("num_replicas"), "{e}");
    let e = parse_sia_workload(
        Path::new("w.csv"),
        &format!("{h}a,1,cifar10,1,8\na,2,bert,1,8\n"),
    )
    .unwrap_err();
    assert!(e.message.contains("repeats") && e.line == 3, "{e}");
    let e = parse_sia_workload(Path::new("w.csv"), "name,time,app\n").unwrap_err();
    assert!(e.message.contains("application"), "{e}");
    assert!(parse_sia_workload(Path::new("w.csv"), "").is_err());
    let e = parse_sia_workload(Path::new("w.csv"), &format!("{h}a,-1,cifar10,1,8\n")).unwrap_err();
    assert!(e.message.contains("`time`"), "{e}");
}
