/* Policies that keep what they derived from the estimates (sjf, easy, optimal) rebuild
 * it when the view's est_version grows (policy.h, begin). Two kinds of test. With
 * policy_churn_estimates the engine grows est_version before every scheduling point
 * although nothing changed: every policy must rebuild and still decide exactly as
 * without it, byte for byte. And a test policy that wraps sjf, easy or optimal changes
 * a job's declared duration or GPU memory (what view_estimate answers for a job
 * without a model) between scheduling points and grows est_version, as a learning
 * controller would: the policy must follow the new estimates (hand-checked orders),
 * and its check hook, which compares its indexes with the estimates now, must pass.
 * Every run here has policy_check_indexes on. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/tools/run.h"
#include "helpers.h"

/* Cuts from text the lines that hold a wall-clock measure (as scripts/golden.sh does). */
static void drop_wall_clock(char *text)
{
    char *out = text;
    for (char *line = text; *line;) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
        if (end)
            *end = '\0'; /* for strstr, put back below */
        bool wall = strstr(line, "\"wall_s\":") || strstr(line, "\"events_per_s\":");
        if (end)
            *end = '\n';
        if (!wall) {
            memmove(out, line, len);
            out += len;
        }
        line += len;
    }
    *out = '\0';
}

/* Runs the request twice, without and with policy_churn_estimates, and asserts that
 * jobs.csv, timeline.csv and summary.json (less its wall-clock lines) are
 * byte-identical. */
static void assert_churn_changes_nothing(struct run_request req, const char *what)
{
    static const char *const files[] = {"jobs.csv", "timeline.csv", "summary.json"};
    char dir[2][96], err[CPN_ERR_LEN];
    policy_check_indexes = true;
    for (int c = 0; c < 2; c++) {
        snprintf(dir[c], sizeof dir[c], "/tmp/cpn_churn_%d_%d", (int)getpid(), c);
        req.out = dir[c];
        struct run_result res;
        policy_churn_estimates = c == 1;
        cr_assert_eq(run_simulation(&req, &res, err, sizeof err), 0, "%s: %s", what, err);
    }
    policy_churn_estimates = false;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char p0[160], p1[160];
        snprintf(p0, sizeof p0, "%s/%s", dir[0], files[f]);
        snprintf(p1, sizeof p1, "%s/%s", dir[1], files[f]);
        char *a = slurp(p0), *b = slurp(p1);
        cr_assert(a && b, "%s: %s missing", what, files[f]);
        drop_wall_clock(a);
        drop_wall_clock(b);
        cr_assert_str_eq(a, b, "%s: %s differs when the estimates are rebuilt at every point",
                         what, files[f]);
        free(a);
        free(b);
    }
    sh("rm -rf %s %s", dir[0], dir[1]);
}

/* Every registered policy on the default cluster with the default generated queue of
 * 100 jobs and the rf predictor. */
Test(est_rebuild, churn_changes_no_decision_default_queue, .timeout = 120)
{
    for (size_t p = 0; p < policy_registry_len; p++) {
        struct run_request req = {.policy = policy_registry[p]->name,
                                  .predictor = RUN_DEFAULT_PREDICTOR,
                                  .seed = RUN_DEFAULT_SEED};
        assert_churn_changes_nothing(req, policy_registry[p]->name);
    }
}

/* The golden scenarios mixed-sjf, mixed-easy, mixed-optimal and mixed-optimal-live
 * (tests/golden/scenarios.txt): mixed GPU types, two sites, the rf predictor. */
Test(est_rebuild, churn_changes_no_decision_golden_mixed, .timeout = 120)
{
    const char *live[] = {"scrape_interval_s=0", "completion=event", "reserve_after_s=300"};
    const struct {
        const char *policy;
        const char *const *sets;
        size_t n_sets;
    } cases[] = {{"sjf", NULL, 0}, {"easy", NULL, 0}, {"optimal", NULL, 0}, {"optimal", live, 3}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct run_request req = {.cluster = "tests/golden/mixed-cluster.json",
                                  .jobs = "tests/golden/mixed-jobs.csv",
                                  .policy = cases[c].policy,
                                  .predictor = RUN_DEFAULT_PREDICTOR,
                                  .seed = RUN_DEFAULT_SEED,
                                  .sets = cases[c].sets,
                                  .n_sets = cases[c].n_sets};
        assert_churn_changes_nothing(req, cases[c].policy);
    }
}

/* ---- estimates that really change ---- */

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-6

/* When the controller is told `when` of job `at`, job `job`'s declared duration and
 * GPU memory become these (a negative value leaves it), and est_version grows. The
 * engine works out a job's true work when it places it, so a change to a running
 * job moves only its estimate. */
struct change {
    const char *at;
    enum policy_job_event when;
    const char *job;
    double duration_s, gpu_mem_gib;
};

/* The wrapped policy, the run and its changes (one test per process). */
static struct {
    const struct policy_ops *inner;
    struct run *r;
    const struct change *c;
    size_t n;
} learn;

static void learn_job_event(void *state, const struct view *v, uint32_t j, enum policy_job_event e)
{
    learn.inner->job_event(state, v, j, e);
    for (size_t i = 0; i < learn.n; i++) {
        const struct change *c = &learn.c[i];
        if (e != c->when || j != run_job(learn.r, c->at))
            continue;
        struct job *jb = &learn.r->js.v[run_job(learn.r, c->job)];
        if (c->duration_s >= 0)
            jb->duration_s = c->duration_s;
        if (c->gpu_mem_gib >= 0)
            jb->gpu_mem_gib = c->gpu_mem_gib;
        learn.r->s->view.est_version++;
    }
}

/* Runs `policy`, wrapped so that the changes happen, on one node of `gpus` GPUs (80
 * GiB) with live metrics and completion events, with policy_check_indexes on. */
static void run_learning(struct run *r, const char *policy, unsigned gpus, const char *jobs_csv,
                         const struct change *c, size_t n)
{
    static struct policy_ops wrapped;
    learn.inner = policy_find(policy);
    cr_assert(learn.inner && learn.inner->job_event);
    wrapped = *learn.inner;
    wrapped.job_event = learn_job_event;
    learn.r = r;
    learn.c = c;
    learn.n = n;
    policy_check_indexes = true;
    run_create(r, one_node_cluster(gpus, 80, 0, "event"), NULL, 0, jobs_csv, &wrapped);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(sim_run(r->s, err, sizeof err), 0, "%s", err);
}

static double start_of(const struct run *r, const char *id) { return run_start_s(r, id); }

/* One GPU. a runs 0..100; b (50 s) and c (30 s) wait. When a's end is learnt at 100,
 * b's estimate (and run) becomes 10 s. sjf, shortest first by the new estimates,
 * starts b at 100 and c at 110; by the lengths it keyed them by at arrival it would
 * start c first. optimal's default order, largest predicted GPU-time first, would put
 * b (50 s) before c (30 s) by the keys at arrival; by the new ones c starts at 100 and
 * b at 130. */
Test(est_rebuild, queue_orders_by_the_new_estimates)
{
    const struct change c[] = {{"a", POLICY_JOB_LEARNT, "b", 10, -1}};
    const struct {
        const char *policy;
        double b_start, c_start;
    } cases[] = {{"sjf", 100, 110}, {"optimal", 130, 100}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct run r;
        run_learning(&r, cases[i].policy, 1,
                     HDR "a,0,-,1,1,0,1,1,1,0,a,100,10\n"
                         "b,1,-,1,1,0,1,1,1,0,a,50,10\n"
                         "c,2,-,1,1,0,1,1,1,0,a,30,10\n",
                     c, 1);
        cr_assert_float_eq(start_of(&r, "b"), cases[i].b_start, EPS, "%s", cases[i].policy);
        cr_assert_float_eq(start_of(&r, "c"), cases[i].c_start, EPS, "%s", cases[i].policy);
        run_free(&r);
    }
}

/* optimal predicts a running job's end from the estimate now: when b arrives, a's
 * estimate (not its run) grows to 500 s, and the check hook, which compares each
 * running job's predicted run with view_estimate, passes only if a was predicted
 * again. b still starts when a really ends, at 100. */
Test(est_rebuild, optimal_predicts_running_jobs_again)
{
    const struct change c[] = {{"b", POLICY_JOB_QUEUED, "a", 500, -1}};
    struct run r;
    run_learning(&r, "optimal", 1,
                 HDR "a,0,-,1,1,0,1,1,1,0,a,100,10\n"
                     "b,1,-,1,1,0,1,1,1,0,a,50,10\n",
                 c, 1);
    cr_assert_float_eq(start_of(&r, "b"), 100, EPS);
    run_free(&r);
}

/* Shapes follow the estimates: on two GPUs, h (2 GPUs) waits for a; p, q and s (one
 * GPU each, 30, 40 and 20 GiB predicted) wait behind it. Their predicted memory
 * changes while they wait (p's and q's to one value, so they share a shape; s's to
 * another), once when b arrives and once when a's end is learnt. sjf and easy find the
 * shapes afresh (their check hooks compare every queued job's shape with its
 * estimates now), and every job still runs. */
Test(est_rebuild, shapes_follow_the_new_memory)
{
    const struct change c[] = {{"b", POLICY_JOB_QUEUED, "p", -1, 25},
                               {"b", POLICY_JOB_QUEUED, "q", -1, 25},
                               {"a", POLICY_JOB_LEARNT, "s", -1, 60},
                               {"a", POLICY_JOB_LEARNT, "p", -1, 50}};
    const char *policies[] = {"sjf", "easy", "optimal"};
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++) {
        struct run r;
        run_learning(&r, policies[i], 2,
                     HDR "a,0,-,1,1,0,2,1,1,0,a,100,10\n"
                         "h,1,-,1,1,0,2,1,1,0,a,10,10\n"
                         "p,2,-,1,1,0,1,1,1,0,a,30,30\n"
                         "q,3,-,1,1,0,1,1,1,0,a,40,40\n"
                         "s,4,-,1,1,0,1,1,1,0,a,20,20\n"
                         "b,5,-,1,1,0,1,1,1,0,a,20,20\n",
                     c, 4);
        cr_assert_eq(r.s->st.completed, r.js.n, "%s: %zu of %zu jobs completed", policies[i],
                     r.s->st.completed, r.js.n);
        run_free(&r);
    }
}
