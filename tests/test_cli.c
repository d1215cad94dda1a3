/* The command line as a user meets it: exit statuses, output files, determinism.
 * Runs ./cpnsim (CPNSIM overrides the path) from the repository root. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/tools/stats.h"
#include "helpers.h"
#include "../sim/base/util.h"
#include "../sim/tools/run.h"

static const char *bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

/* Each test (its own process) works in a scratch directory of its own, $TMPD, so
 * that concurrent test runs never share files; slurp() expands a leading $TMPD. */
static void scratch_init(void)
{
    char d[64];
    snprintf(d, sizeof d, "/tmp/cpn_cli_%d", (int)getpid());
    setenv("TMPD", d, 1);
    cr_assert_eq(sh("rm -rf $TMPD && mkdir -p $TMPD"), 0);
}

static void scratch_fini(void) { sh("rm -rf $TMPD"); }

TestSuite(cli, .init = scratch_init, .fini = scratch_fini);

/* The summary without its wall-clock fields, which come last. */
static char *summary_sans_wall(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    char *s = slurp(path);
    cr_assert_not_null(s, "%s missing", path);
    char *w = strstr(s, "\"wall_s\"");
    cr_assert_not_null(w);
    *w = '\0';
    return s;
}

Test(cli, default_scenario_runs_and_writes_outputs)
{
    cr_assert_eq(sh("rm -rf $TMPD/cpn_cli_def && %s run --out $TMPD/cpn_cli_def >/dev/null", bin()), 0);
    cr_assert_eq(sh("test -s $TMPD/cpn_cli_def/summary.json && test -s $TMPD/cpn_cli_def/jobs.csv "
                    "&& test -s $TMPD/cpn_cli_def/timeline.csv"),
                 0);
    cr_assert_eq(sh("ls -A $TMPD/cpn_cli_def | grep -q tmp"), 1, "no temporary file left");
    cr_assert_eq(sh("test $(wc -l < $TMPD/cpn_cli_def/jobs.csv) -eq 101"), 0);
}

Test(cli, same_seed_same_bytes)
{
    cr_assert_eq(sh("rm -rf $TMPD/cpn_det_a $TMPD/cpn_det_b"), 0);
    cr_assert_eq(sh("%s run --quiet --jobs traces/q100.csv --out $TMPD/cpn_det_a", bin()), 0);
    cr_assert_eq(sh("%s run --quiet --jobs traces/q100.csv --out $TMPD/cpn_det_b", bin()), 0);
    cr_assert_eq(sh("cmp -s $TMPD/cpn_det_a/jobs.csv $TMPD/cpn_det_b/jobs.csv"), 0);
    cr_assert_eq(sh("cmp -s $TMPD/cpn_det_a/timeline.csv $TMPD/cpn_det_b/timeline.csv"), 0);
    char *a = summary_sans_wall("$TMPD/cpn_det_a"), *b = summary_sans_wall("$TMPD/cpn_det_b");
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
}

/* The embedded default queue with seed 1 is traces/q100.csv. */
Test(cli, default_queue_is_q100)
{
    cr_assert_eq(sh("rm -rf $TMPD/cpn_q_a $TMPD/cpn_q_b"), 0);
    cr_assert_eq(sh("%s run --quiet --out $TMPD/cpn_q_a", bin()), 0);
    cr_assert_eq(sh("%s run --quiet --jobs traces/q100.csv --out $TMPD/cpn_q_b", bin()), 0);
    cr_assert_eq(sh("cmp -s $TMPD/cpn_q_a/jobs.csv $TMPD/cpn_q_b/jobs.csv"), 0);
    cr_assert_eq(sh("%s gen --count 100 --seed 1 | cmp -s - traces/q100.csv", bin()), 0);
    cr_assert_eq(sh("%s gen --count 40 --seed 1 | cmp -s - traces/q40.csv", bin()), 0);
}

Test(cli, deadlock_is_a_result_exit_0)
{
    cr_assert_eq(sh("rm -rf $TMPD/cpn_dl && %s run --quiet --jobs tests/data/deadlock.csv --out $TMPD/cpn_dl",
                    bin()),
                 0);
    char *s = slurp("$TMPD/cpn_dl/summary.json");
    cr_assert_not_null(s);
    cr_assert_not_null(strstr(s, "\"deadlock\":\ttrue"), "%s", s);
    cr_assert_not_null(strstr(s, "\"makespan_s\":\tnull"));
    free(s);
    char *jobs = slurp("$TMPD/cpn_dl/jobs.csv");
    cr_assert_not_null(strstr(jobs, ",stuck\n"));
    free(jobs);
}

Test(cli, bad_input_exit_2_with_file_line_field)
{
    cr_assert_eq(sh("%s run --jobs tests/data/bad_negative.csv --out $TMPD/cpn_bad 2>$TMPD/cpn_bad.err",
                    bin()),
                 2);
    char *e = slurp("$TMPD/cpn_bad.err");
    cr_assert_not_null(strstr(e, "tests/data/bad_negative.csv:3: gpus:"), "message was: %s", e);
    free(e);
    cr_assert_neq(sh("test -e $TMPD/cpn_bad/summary.json"), 0, "no output for bad input");
    cr_assert_eq(sh("%s run --policy nope 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s run --set no_such_key=1 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s run --cluster /nonexistent.json 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s frobnicate 2>/dev/null", bin()), 2);
}

/* A queue with a distributed job reads (the readers know pods), but the engine refuses
 * to run it, naming the job, until it runs distributed jobs (issue 19): exit status 2
 * and no output. The engine's change replaces this test. */
/* A queue with a job of four pods runs under fifo on the default cluster: jobs.csv
 * gains the pods columns, and j2's four pods are on four nodes (each pod takes a whole
 * 8-GPU node, no node holds two). */
Test(cli, distributed_jobs_run_and_show_their_pods)
{
    cr_assert_eq(sh("%s run --quiet --jobs tests/data/jobs/pods.csv --out $TMPD/pods", bin()), 0);
    char *c = slurp("$TMPD/pods/jobs.csv");
    cr_assert_not_null(c);
    cr_assert_not_null(strstr(c, ",status,pods,pod_nodes,pod_gpu_ids,gang_timeouts\n"), "%s", c);
    const char *j2 = strstr(c, "\nj2,");
    cr_assert_not_null(j2, "%s", c);
    cr_assert_not_null(strstr(j2, ",done,4,"), "%s", j2);
    const char *nodes = strstr(j2, ",done,4,") + strlen(",done,4,");
    int semis = 0;
    for (const char *q = nodes; *q != ','; q++)
        semis += *q == ';';
    cr_assert_eq(semis, 3, "four nodes: %s", nodes);
    free(c);
}

/* A --cpu-threshold too long for its buffer is refused, never cut: 0.5 followed by
 * 60 zeros had run as 0.05. One just under the limit is the same threshold as 0.5. */
Test(cli, long_cpu_threshold_is_refused_not_cut)
{
    char z[61];
    memset(z, '0', 60);
    z[60] = '\0';
    cr_assert_eq(sh("%s run --quiet --cpu-threshold 0.5%s --out $TMPD/cpn_th 2>$TMPD/cpn_th.err",
                    bin(), z),
                 2);
    char *e = slurp("$TMPD/cpn_th.err");
    cr_assert_not_null(strstr(e, "--cpu-threshold: value longer than 48 characters"), "%s", e);
    free(e);
    cr_assert_neq(sh("test -e $TMPD/cpn_th/summary.json"), 0);
    z[45] = '\0'; /* "0.5" and 45 zeros: 48 characters */
    cr_assert_eq(sh("%s run --quiet --cpu-threshold 0.5%s --out $TMPD/cpn_th1 && "
                    "%s run --quiet --cpu-threshold 0.5 --out $TMPD/cpn_th2 && "
                    "cmp -s $TMPD/cpn_th1/jobs.csv $TMPD/cpn_th2/jobs.csv",
                    bin(), z, bin()),
                 0);
}

Test(cli, help_everywhere)
{
    cr_assert_eq(sh("%s --help >/dev/null", bin()), 0);
    cr_assert_eq(sh("%s run --help | grep -q cpu_threshold", bin()), 0);
    cr_assert_eq(sh("%s gen --help >/dev/null", bin()), 0);
    cr_assert_eq(sh("%s policies | grep -q '^fifo'", bin()), 0);
}

/* The FIFO experiment of the original controller: q100 on the default cluster has
 * OOM kills; the ideal controller (fresh metrics, completions at once) has fewer. */
Test(cli, fifo_q100_ooms_and_ideal_controller_has_fewer)
{
    cr_assert_eq(sh("rm -rf $TMPD/cpn_f1 $TMPD/cpn_f2"), 0);
    cr_assert_eq(sh("%s run --quiet --jobs traces/q100.csv --out $TMPD/cpn_f1", bin()), 0);
    cr_assert_eq(sh("%s run --quiet --jobs traces/q100.csv --set scrape_interval_s=0 "
                    "--set completion=event --out $TMPD/cpn_f2",
                    bin()),
                 0);
    char *a = slurp("$TMPD/cpn_f1/summary.json"), *b = slurp("$TMPD/cpn_f2/summary.json");
    long oa = strtol(strstr(a, "\"oom_events\":") + 13, NULL, 10);
    long ob = strtol(strstr(b, "\"oom_events\":") + 13, NULL, 10);
    cr_assert_gt(oa, 0);
    cr_assert_lt(ob, oa, "ideal %ld vs stale %ld", ob, oa);
    free(a);
    free(b);
}

/* A site may be named anything its file allows, commas and quotes included: every CSV
 * cell that holds it is quoted (RFC 4180), so jobs.csv's node and timeline.csv's header
 * read back with as many cells as the header names, and the names intact. */
Test(cli, site_names_with_commas_and_quotes_are_quoted_in_csv)
{
    cr_assert_eq(sh("printf '%%s' '{\"sites\": [{\"name\": \"b,\\\"j\", \"nodes\": [{\"cpus\": 8, "
                    "\"mem_gib\": 64, \"gpu_type\": \"G\", \"gpus\": 1}]}], \"gpu_types\": {\"G\": "
                    "{\"mem_gib\": 80, \"speed\": 1, \"profile\": \"none\"}}}' > $TMPD/c.json"),
                 0);
    cr_assert_eq(sh("printf 'id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,"
                    "duration_s\\nj1,0,-,1,1,0,1,1,1,0,\"b,\"\"j\",100\\n' > $TMPD/j.csv"),
                 0);
    cr_assert_eq(sh("%s run --cluster $TMPD/c.json --jobs $TMPD/j.csv --out $TMPD/r --quiet", bin()), 0);
    static const char *const file[] = {"jobs.csv", "timeline.csv"};
    for (size_t k = 0; k < 2; k++) {
        char path[256], err[256];
        snprintf(path, sizeof path, "%s/r/%s", getenv("TMPD"), file[k]);
        struct stats_csv t = {0};
        cr_assert_eq(stats_csv_read(path, &t, err, sizeof err), 0, "%s", err);
        if (k == 0) {
            cr_assert_eq(t.n_cols, 18);
            cr_assert_str_eq(stats_csv_get(&t, 0, stats_csv_col(&t, "site")), "b,\"j");
            cr_assert_str_eq(stats_csv_get(&t, 0, stats_csv_col(&t, "node")), "b,\"j-n0");
            cr_assert_str_eq(stats_csv_get(&t, 0, stats_csv_col(&t, "status")), "done");
        } else {
            cr_assert_eq(t.n_cols, 8, "timeline has %zu columns", t.n_cols);
            cr_assert_str_eq(t.col[7], "b,\"j_cpu_util");
        }
        stats_csv_free(&t);
    }
}

/* summary.json stays valid UTF-8 whatever an id holds: a stuck job's id of bytes
 * 0xFF 0xFE (no UTF-8) is written with those bytes as the text \xFF\xFE. */
Test(cli, summary_json_is_utf8_whatever_an_id_holds)
{
    cr_assert_eq(sh("printf 'id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,"
                    "duration_s\\nj\\377\\3761,0,-,1,1,0,64,1,1,0,bj,100\\n' > $TMPD/j.csv"),
                 0);
    sh("%s run --jobs $TMPD/j.csv --out $TMPD/r --quiet", bin());
    char *s = slurp("$TMPD/r/summary.json");
    cr_assert_not_null(s);
    cr_assert_not_null(strstr(s, "\"j\\\\xFF\\\\xFE1\""), "%s", s);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        cr_assert_lt(*p, 0x80, "a byte 0x%02X in summary.json", *p);
    free(s);
}

/* The original controller's own Job YAML (unquoted numbers, no origin) runs as it is:
 * one note, exit 0. Its jobs come from the controller's site, bj, where the first job
 * starts at once; with --origin sh their data must first cross the sh-bj link, so they
 * start later. An unknown --origin is a usage error naming it. */
Test(cli, controller_yaml_and_origin)
{
    cr_assert_eq(sh("%s run --jobs tests/data/k8s/controller.yaml --out $TMPD/k1 >/dev/null "
                    "2>$TMPD/k1.err",
                    bin()),
                 0);
    char *e = slurp("$TMPD/k1.err");
    cr_assert_not_null(strstr(e, "controller.yaml:9: metadata.annotations.data_size: Kubernetes "
                                 "would refuse this"),
                       "%s", e);
    cr_assert_null(strstr(strstr(e, "note:") + 1, "note:"), "one note per file: %s", e);
    free(e);
    /* jobs.csv: id,model,batch,submit_s,site,node,gpus,gpu_ids,transfer_start_s,start_s */
    cr_assert_eq(sh("awk -F, '$1==\"densenet\" && $5==\"bj\" && $10==\"0.000\"{f=1} END{exit !f}' "
                    "$TMPD/k1/jobs.csv"),
                 0, "origin bj: no transfer before the start");
    cr_assert_eq(sh("%s run -q --jobs tests/data/k8s/controller.yaml --origin sh --out $TMPD/k2 "
                    "2>/dev/null",
                    bin()),
                 0);
    cr_assert_eq(sh("awk -F, '$1==\"densenet\" && $5==\"bj\" && $10>0{f=1} END{exit !f}' "
                    "$TMPD/k2/jobs.csv"),
                 0, "origin sh: the data crosses a link first");
    cr_assert_eq(sh("%s run --jobs tests/data/k8s/controller.yaml --origin mars --out $TMPD/k3 "
                    "2>$TMPD/k3.err",
                    bin()),
                 2);
    e = slurp("$TMPD/k3.err");
    cr_assert_not_null(strstr(e, "--origin: unknown site 'mars' (sites of <default cluster>: "
                                 "bj sh gz)"),
                       "%s", e);
    free(e);
    cr_assert_eq(sh("%s run --help | grep -q 'Kubernetes Job YAML'", bin()), 0);
}

/* A run that reaches max_timeline_rows names how far it got and why: three jobs of
 * 1000 s on one node and 2 rows: the samples at 0 and 60 s (the jobs started) are
 * taken, and the one at 120 s, which sees nothing new, would skip the idle stretch
 * to the jobs' ends for a third row, so at 120 s none has ended. Under default without
 * gpu_as_resource all three start on GPU 0 and the message blames the sharing; with
 * it each has a GPU of its own and the message names the other causes. */
Test(cli, timeline_limit_names_its_cause)
{
    cr_assert_eq(sh("printf '%%s\\n' '{\"gpu_types\": {\"H100-80G\": {\"mem_gib\": 80}}, "
                    "\"sites\": [{\"name\": \"bj\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, "
                    "\"gpu_type\": \"H100-80G\", \"gpus\": 8}]}]}' > $TMPD/one.json && "
                    "printf 'id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,"
                    "origin,duration_s\\n' > $TMPD/three.csv && for j in a b c; do "
                    "echo $j,0,-,1,1,0,1,1,1,0,bj,1000 >> $TMPD/three.csv; done"),
                 0);
#define LIMIT_RUN                                                                         \
    "%s run --cluster $TMPD/one.json --jobs $TMPD/three.csv --policy default "              \
    "--set max_timeline_rows=2 --set gpu_as_resource=%s --out $TMPD/t 2>$TMPD/t.err"
    cr_assert_eq(sh(LIMIT_RUN, bin(), "false"), 2);
    char *e = slurp("$TMPD/t.err");
    cr_assert_not_null(strstr(e, "reached max_timeline_rows (2 samples of 60 s taken, an idle "
                                 "stretch skipped counting as one) at simulated time 120 s "
                                 "(0.00139 days), 0 of 3 jobs ended (0 failed); GPU 0 of "
                                 "node bj-n0 runs 3 jobs at once: GPU sharing stretches the run. "
                                 "Set gpu_as_resource=true"),
                       "%s", e);
    free(e);
    cr_assert_eq(sh(LIMIT_RUN, bin(), "true"), 2);
    e = slurp("$TMPD/t.err");
    cr_assert_not_null(strstr(e, "0 of 3 jobs ended (0 failed); the samples kept seeing jobs "
                                 "wait or the cluster change"),
                       "%s", e);
    free(e);
}

/* ---- the progress line (sim/tools/run.c) ---- */

Test(run_progress, format_picks_the_unit)
{
    char buf[200];
    run_progress_format(buf, sizeof buf, 59, 0, 3, 0);
    cr_assert_str_eq(buf, "cpnsim: simulated 59.0 s, 0 of 3 jobs ended, 0 events/s");
    run_progress_format(buf, sizeof buf, 5400, 1, 3, 12345);
    cr_assert_str_eq(buf, "cpnsim: simulated 1.5 h, 1 of 3 jobs ended, 1.23e+04 events/s");
    run_progress_format(buf, sizeof buf, 2 * 86400, 2, 3, 10);
    cr_assert_str_eq(buf, "cpnsim: simulated 2.0 days, 2 of 3 jobs ended, 10 events/s");
    run_progress_format(buf, sizeof buf, 19 * 365 * 86400.0, 3, 3, 10);
    cr_assert_str_eq(buf, "cpnsim: simulated 19.0 years, 3 of 3 jobs ended, 10 events/s");
}

/* With no delay the default run with a scrape every second (30,038 events, more than
 * SIM_PROGRESS_EVERY) shows the line and clears it at the end, and its outputs are
 * those of a run without progress. */
Test(run_progress, shown_cleared_and_results_unchanged, .init = scratch_init,
     .fini = scratch_fini)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    char err[CPN_ERR_LEN] = "", out_a[128], out_b[128];
    snprintf(out_a, sizeof out_a, "%s/a", getenv("TMPD"));
    snprintf(out_b, sizeof out_b, "%s/b", getenv("TMPD"));
    const char *const sets[] = {"scrape_interval_s=1"};
    struct run_request req = {.policy = "fifo", .predictor = RUN_DEFAULT_PREDICTOR,
                              .seed = 1, .sets = sets, .n_sets = 1, .out = out_a,
                              .progress = f, .progress_after_s = 0};
    struct run_result res;
    cr_assert_eq(run_simulation(&req, &res, err, sizeof err), 0, "%s", err);
    cr_assert_gt(res.events, SIM_PROGRESS_EVERY);
    req.out = out_b;
    req.progress = NULL;
    cr_assert_eq(run_simulation(&req, &res, err, sizeof err), 0, "%s", err);
    char got[4096] = "";
    rewind(f);
    size_t n = fread(got, 1, sizeof got - 1, f);
    got[n] = '\0';
    fclose(f);
    cr_assert(strncmp(got, "\rcpnsim: simulated ", 19) == 0, "%s", got);
    cr_assert_not_null(strstr(got, " of 100 jobs ended, "), "%s", got);
    cr_assert(n >= 4 && strcmp(got + n - 4, "\r\033[K") == 0, "cleared at the end");
    cr_assert_eq(sh("cmp -s $TMPD/a/jobs.csv $TMPD/b/jobs.csv && "
                    "cmp -s $TMPD/a/timeline.csv $TMPD/b/timeline.csv"),
                 0);
}

/* An empty output path is a usage error of every command that writes (exit 2, nothing
 * written), not a write into the current directory or the root. */
Test(cli, empty_paths_are_usage_errors)
{
    static const char *const cmd[] = {
        "run --out ''", "run --jobs ''", "sweep scripts/network.json --out ''",
        "plot $TMPD --out ''", "gen --count 3 -o ''", "import philly '' -o $TMPD/x.csv"};
    for (size_t i = 0; i < sizeof cmd / sizeof cmd[0]; i++)
        cr_assert_eq(sh("%s %s 2>$TMPD/err.txt; s=$?; grep -q 'an empty path' $TMPD/err.txt && "
                        "exit $s",
                        bin(), cmd[i]),
                     2, "%s", cmd[i]);
}

/* An output that would replace an input is refused before anything is read or written:
 * `run --jobs D/jobs.csv --out D` keeps the queue, and so does `import ... -o` the trace. */
Test(cli, outputs_never_replace_inputs)
{
    cr_assert_eq(sh("%s gen --count 5 -o $TMPD/jobs.csv && cp $TMPD/jobs.csv $TMPD/orig.csv", bin()), 0);
    cr_assert_eq(sh("%s run --jobs $TMPD/jobs.csv --out $TMPD --quiet 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s run --jobs $TMPD/jobs.csv --out $TMPD/../%s --quiet 2>/dev/null", bin(),
                    strrchr(getenv("TMPD"), '/') + 1),
                 2, "the same directory by another path");
    cr_assert_eq(sh("cmp -s $TMPD/jobs.csv $TMPD/orig.csv && test ! -e $TMPD/summary.json"), 0);
    cr_assert_eq(sh("%s import philly tests/data/import/philly_small.csv -o $TMPD/p.csv 2>/dev/null && "
                    "cp $TMPD/p.csv $TMPD/p0.csv",
                    bin()),
                 0);
    cr_assert_eq(sh("%s import philly $TMPD/p.csv -o $TMPD/p.csv 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("cmp -s $TMPD/p.csv $TMPD/p0.csv"), 0);
}

/* Seeds are whole numbers end to end: summary.json records 123456789012345678 as
 * written (a double would record ...680, and a rerun with it would draw another
 * queue); a spec's seed above 2^53 reaches the run and runs.csv exactly; 2^64 - 1 is
 * the largest seed for both `run` and a spec, and 2^64 is refused by both. */
Test(cli, seeds_are_whole_numbers_end_to_end, .timeout = 60)
{
    cr_assert_eq(sh("%s run --count 3 --seed 123456789012345678 --out $TMPD/r --quiet && "
                    "grep -q '\"seed\":.123456789012345678,$' $TMPD/r/summary.json",
                    bin()),
                 0);
    cr_assert_eq(sh("%s run --count 3 --seed 18446744073709551615 --out $TMPD/r2 --quiet", bin()), 0);
    cr_assert_eq(sh("%s run --count 3 --seed 18446744073709551616 --out $TMPD/r3 --quiet 2>$TMPD/e; "
                    "s=$?; grep -q 'from 0 to 18446744073709551615' $TMPD/e && exit $s",
                    bin()),
                 2);
    cr_assert_eq(sh("printf '{\"base\": {\"jobs\": null, \"count\": 3}, \"grid\": {\"seed\": "
                    "[9007199254740992, 9007199254740993]}}' > $TMPD/s.json && "
                    "%s sweep $TMPD/s.json --out $TMPD/sw >/dev/null 2>&1 && "
                    "grep -q ',9007199254740993,fifo,9007199254740993,' $TMPD/sw/runs.csv && "
                    "test -s $TMPD/sw/runs/seed=9007199254740992/jobs.csv && "
                    "test -s $TMPD/sw/runs/seed=9007199254740993/jobs.csv && "
                    "! cmp -s $TMPD/sw/runs/seed=9007199254740992/jobs.csv "
                    "$TMPD/sw/runs/seed=9007199254740993/jobs.csv",
                    bin()),
                 0);
}

/* A job file is written as CSV or JSON: a .yaml name, which run would read as
 * Kubernetes YAML, is refused; so is a generated queue whose arrivals pass what a job
 * file allows (1e12 s), instead of writing a file that run then refuses. */
Test(cli, gen_writes_only_what_run_reads)
{
    cr_assert_eq(sh("%s gen --count 3 -o $TMPD/q.yaml 2>$TMPD/e; s=$?; grep -q 'name the file .csv or .json' "
                    "$TMPD/e && test ! -e $TMPD/q.yaml && exit $s",
                    bin()),
                 2);
    cr_assert_eq(sh("%s gen --count 3 --arrival poisson:1e-300 -o $TMPD/q.csv 2>$TMPD/e; s=$?; "
                    "grep -q 'past the 1e+12 s a job file allows' $TMPD/e && test ! -e $TMPD/q.csv && exit $s",
                    bin()),
                 2);
}

/* An unknown import format is named as one, with the formats there are. */
Test(cli, unknown_import_format_says_format)
{
    cr_assert_eq(sh("%s import bogus tests/data/import/philly_small.csv -o $TMPD/x.csv 2>$TMPD/e; s=$?; "
                    "grep -q \"unknown format 'bogus': FORMAT is philly, openb, gavel\" $TMPD/e && "
                    "test ! -e $TMPD/x.csv && exit $s",
                    bin()),
                 2);
}

/* Unbounded input: every reader refuses /dev/zero at its first NUL byte (exit 2 within
 * the timeout; before, memory grew by gigabytes until the kernel's OOM killer), a sweep's
 * spec check included. No address-space limit here: ASan's shadow memory needs it all. */
Test(cli, endless_inputs_are_refused_at_once, .timeout = 120)
{
    static const char *const cmd[] = {
        "run --quiet --jobs /dev/zero",
        "run --quiet --cluster /dev/zero",
        "import philly /dev/zero -o $TMPD/x.csv",
        "import gavel /dev/zero -o $TMPD/x.csv",
        "import openb /dev/zero -o $TMPD/x.csv",
        "import pai-machines /dev/zero -o $TMPD/x.json",
        "import philly /dev/urandom -o $TMPD/x.csv",
    };
    for (size_t i = 0; i < sizeof cmd / sizeof cmd[0]; i++)
        cr_assert_eq(sh("timeout -s KILL 20 %s %s 2>$TMPD/e >/dev/null; "
                        "s=$?; grep -q 'NUL byte' $TMPD/e && exit $s",
                        bin(), cmd[i]),
                     2, "%s", cmd[i]);
    cr_assert_eq(sh("printf '{\"base\": {\"jobs\": \"/dev/zero\"}, \"grid\": {\"policy\": [\"fifo\"]}}' "
                    "> $TMPD/s.json; timeout -s KILL 20 %s sweep $TMPD/s.json --out $TMPD/sw 2>$TMPD/e "
                    ">/dev/null; s=$?; grep -q 'NUL byte' $TMPD/e && exit $s",
                    bin()),
                 2);
}
