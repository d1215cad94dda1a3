/* The engine's checked wrappers over a policy's hooks (sim/engine/policy_call.c): a
 * deliberately bad policy makes each kind of invalid placement, and the engine must
 * abort on it (before it reads a GPU index past the node's GPUs) instead of
 * applying it. A well-behaved run through the same policy shows the scenario itself
 * is sound. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"

/* On one node of 2 GPUs and 64 cores: a and b take 40 cores each (both cannot fit),
 * w asks 2 GPUs, c asks 4 (more than the node holds), late arrives at 1000 s. */
static const char jobs_csv[] = HDR
    "a,0,resnet50,32,1,0,1,40,8,0,a,100,1\n"
    "b,0,resnet50,32,1,0,1,40,8,0,a,100,1\n"
    "w,0,resnet50,32,1,0,2,4,8,0,a,100,1\n"
    "c,0,resnet50,32,1,0,4,4,8,0,a,100,1\n"
    "late,1000,resnet50,32,1,0,1,4,8,0,a,100,1\n";

enum bad_mode {
    BAD_NONE,        /* valid: places a once */
    BAD_NO_JOB,      /* a job index that does not exist */
    BAD_NOT_QUEUED,  /* a job not yet submitted */
    BAD_NO_NODE,     /* a node index that does not exist */
    BAD_COUNT,       /* fewer GPUs than the job asks */
    BAD_TOO_MANY,    /* as many GPUs as the job asks, more than the node holds */
    BAD_OFF_NODE,    /* a GPU of no such node */
    BAD_TWICE,       /* one GPU given twice */
    BAD_REQUESTS,    /* CPU requests beyond what the node has free */
    BAD_RESULT,      /* place returns neither 0 nor 1 */
};

/* The mode of this test process (Criterion runs each test in its own process). */
static enum bad_mode mode;
static unsigned calls;

static int bad_place(void *state, const struct view *v, struct placement *out)
{
    (void)state;
    (void)v;
    if (calls++ > 0 && mode != BAD_REQUESTS)
        return 0;
    *out = (struct placement){.job = 0, .node = 0, .ngpus = 1, .gpu = {0}};
    switch (mode) {
    case BAD_NONE:
        break;
    case BAD_NO_JOB:
        out->job = 99;
        break;
    case BAD_NOT_QUEUED:
        out->job = 4;
        break;
    case BAD_NO_NODE:
        out->node = 7;
        break;
    case BAD_COUNT:
        out->job = 2;
        break;
    case BAD_TOO_MANY:
        *out = (struct placement){.job = 3, .node = 0, .ngpus = 4, .gpu = {0, 1, 2, 3}};
        break;
    case BAD_OFF_NODE:
        out->gpu[0] = 9;
        break;
    case BAD_TWICE:
        *out = (struct placement){.job = 2, .node = 0, .ngpus = 2, .gpu = {1, 1}};
        break;
    case BAD_REQUESTS: /* a, then b beside it: 80 of 64 cores */
        if (calls > 2)
            return 0;
        out->job = calls - 1;
        out->gpu[0] = calls - 1;
        break;
    case BAD_RESULT:
        return 2;
    }
    return 1;
}

static const struct policy_ops bad_policy = {.name = "bad", .place = bad_place};

static void run_bad(enum bad_mode m)
{
    char err[256] = "";
    mode = m;
    calls = 0;
    struct run r;
    memset(&r, 0, sizeof r);
    jobset_init(&r.js);
    const char *cl = one_node_cluster(2, 80, 0, "event");
    cr_assert_eq(catalog_create(&r.cat, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cluster_load_buf("c.json", cl, strlen(cl), NULL, 0, r.cat, &r.cl, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(trace_read_csv_buf("j.csv", jobs_csv, strlen(jobs_csv), r.cat, &r.js, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(sim_create(&r.s, r.cl, r.cat, &r.js, &bad_policy, NULL, NULL, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(sim_run(r.s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.s->st.placements, 1, "the valid placement is applied");
    run_free(&r);
}

Test(policy_call, accepts_a_valid_placement) { run_bad(BAD_NONE); }
Test(policy_call, rejects_a_job_that_does_not_exist, .signal = SIGABRT) { run_bad(BAD_NO_JOB); }
Test(policy_call, rejects_a_job_not_queued, .signal = SIGABRT) { run_bad(BAD_NOT_QUEUED); }
Test(policy_call, rejects_a_node_that_does_not_exist, .signal = SIGABRT) { run_bad(BAD_NO_NODE); }
Test(policy_call, rejects_the_wrong_gpu_count, .signal = SIGABRT) { run_bad(BAD_COUNT); }
Test(policy_call, rejects_more_gpus_than_the_node_holds, .signal = SIGABRT) { run_bad(BAD_TOO_MANY); }
Test(policy_call, rejects_a_gpu_off_the_node, .signal = SIGABRT) { run_bad(BAD_OFF_NODE); }
Test(policy_call, rejects_a_gpu_given_twice, .signal = SIGABRT) { run_bad(BAD_TWICE); }
Test(policy_call, rejects_requests_beyond_the_free_cpu, .signal = SIGABRT) { run_bad(BAD_REQUESTS); }
Test(policy_call, rejects_a_result_not_0_or_1, .signal = SIGABRT) { run_bad(BAD_RESULT); }

/* A placement on a GPU type the job may not run on: ResNet-50 at batch 128 on 2 K80s,
 * which Gavel's table measured at zero throughput (view_job_runs_on). The same
 * placement of batch 64, which may run there, is applied. */
static int k80_place(void *state, const struct view *v, struct placement *out)
{
    (void)state;
    if (v->queue_head == VIEW_NONE)
        return 0;
    *out = (struct placement){.job = v->queue_head, .node = 0, .ngpus = 2, .gpu = {0, 1}};
    return 1;
}

static void run_on_k80(unsigned batch)
{
    static const struct policy_ops k80_policy = {.name = "k80", .place = k80_place};
    static const char cluster[] =
        "{\"completion\": \"event\", \"scrape_interval_s\": 0,\n"
        " \"gpu_types\": {\"K80\": {\"mem_gib\": 12, \"profile\": \"k80\"}},\n"
        " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"count\": 1, \"cpus\": 64,\n"
        "   \"mem_gib\": 512, \"gpu_type\": \"K80\", \"gpus\": 2}]}]}\n";
    char jobs[256];
    snprintf(jobs, sizeof jobs, HDR "r,0,resnet50,%u,1,0,2,4,8,0,a,100,1\n", batch);
    char err[256] = "";
    struct run r;
    memset(&r, 0, sizeof r);
    jobset_init(&r.js);
    cr_assert_eq(catalog_create(&r.cat, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cluster_load_buf("c.json", cluster, strlen(cluster), NULL, 0, r.cat, &r.cl, err,
                                  sizeof err),
                 0, "%s", err);
    cr_assert_eq(trace_read_csv_buf("j.csv", jobs, strlen(jobs), r.cat, &r.js, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(sim_create(&r.s, r.cl, r.cat, &r.js, &k80_policy, NULL, NULL, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(sim_run(r.s, err, sizeof err), 0, "%s", err);
    cr_assert_eq(r.s->rt[0].state, JS_DONE);
    run_free(&r);
}

Test(policy_call, accepts_a_type_the_job_runs_on) { run_on_k80(64); }
Test(policy_call, rejects_a_type_measured_at_zero_throughput, .signal = SIGABRT)
{
    run_on_k80(128);
}

/* Every policy that keeps indexes has a check hook, and with policy_check_indexes the
 * wrappers run it at every scheduling point of a run with back-offs, reservations and
 * OOM-prone predictions (any disagreement aborts). */
Test(policy_call, index_checks_pass_for_every_policy)
{
    const char *indexed[] = {"default", "sjf", "easy", "optimal"};
    for (size_t i = 0; i < sizeof indexed / sizeof indexed[0]; i++)
        cr_assert_not_null(policy_find(indexed[i])->check, "%s has no check hook", indexed[i]);
    char *cluster_json = slurp("tests/golden/mixed-cluster.json");
    char *jobs = slurp("tests/golden/mixed-jobs.csv");
    cr_assert(cluster_json && jobs);
    const char *sets[] = {"reserve_after_s=300"};
    policy_check_indexes = true;
    for (size_t p = 0; p < policy_registry_len; p++) {
        struct run r;
        run_start(&r, cluster_json, sets, 1, jobs, policy_registry[p]->name);
        run_free(&r);
    }
    free(cluster_json);
    free(jobs);
}
