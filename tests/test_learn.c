/* An honest predictor that learns (docs/predictor.md): the learned methods never see a
 * job's own duration or GPU memory, estimate jobs given by duration from the history of
 * completed ones, and learn step times and memory from the runs the controller sees
 * end. Every expected value is worked out by hand in the comment above its test. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"
#include "../sim/engine/learn.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-6

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }
static double pred_run(const struct run *r, const char *id) { return r->s->pred_run_s[run_job(r, id)]; }

/* One node of `gpus` GPUs of a type (a catalogue profile name, or "none" for a speed-1
 * type of 80 GiB), 64 cores, metrics scraped every scrape_s (0: live), completions seen
 * at once. */
static const char *node_scraped(unsigned gpus, const char *profile, double scrape_s)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": %g, \"completion\": \"event\",\n"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"%s\"}},\n"
             " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"count\": 1, \"cpus\": 64,\n"
             "   \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": %u}]}]}\n",
             scrape_s, profile, gpus);
    return buf;
}

static const char *one_node(unsigned gpus, const char *profile) { return node_scraped(gpus, profile, 0); }

/* Two model-less jobs given by duration on one GPU, the short one first in the queue.
 * optimal takes the largest predicted GPU-time first. The oracle knows the long one
 * (10,000 s) is larger and starts it first: the short one starts when it ends, at
 * 10,000 s. The forest may not see durations: before any job has completed it gives
 * both the prior (3,600 s), the tie keeps queue order and the short one starts at 0. */
Test(learn, the_forest_does_not_see_a_jobs_duration)
{
    const char *jobs = HDR "short,0,-,1,1,0,1,1,1,0,a,100,\n"
                           "long,0,-,1,1,0,1,1,1,0,a,10000,\n";
    struct run o, f;
    run_start_pred(&o, one_node(1, "none"), NULL, 0, jobs, "optimal", "oracle");
    run_start_pred(&f, one_node(1, "none"), NULL, 0, jobs, "optimal", "rf");
    cr_assert_float_eq(run_start_s(&o, "long"), 0, EPS);
    cr_assert_float_eq(run_start_s(&o, "short"), 10000, EPS);
    cr_assert_float_eq(pred_run(&o, "long"), 10000, EPS);
    cr_assert_float_eq(run_start_s(&f, "short"), 0, EPS);
    cr_assert_float_eq(run_start_s(&f, "long"), 100, EPS);
    cr_assert_float_eq(pred_run(&f, "short"), 3600, EPS);
    run_free(&o);
    run_free(&f);
}

/* A job given by duration that needs no GPU memory is not an unseen model: two such
 * one-GPU jobs share a two-GPU node from time 0, under the forest as under the oracle. */
Test(learn, a_modelless_job_that_needs_no_memory_shares_a_node)
{
    const char *specs[] = {"rf", "oracle"};
    for (size_t i = 0; i < 2; i++) {
        struct run r;
        run_start_pred(&r, one_node(2, "none"), NULL, 0,
                       HDR "j1,0,-,1,1,0,1,1,1,0,a,100,\n"
                           "j2,0,-,1,1,0,1,1,1,0,a,100,\n",
                       "optimal", specs[i]);
        cr_assert_float_eq(run_start_s(&r, "j1"), 0, EPS, "%s", specs[i]);
        cr_assert_float_eq(run_start_s(&r, "j2"), 0, EPS, "%s", specs[i]);
        run_free(&r);
    }
}

/* Job a1 (origin a, one GPU, 100 s) completes at 100 s. a2, submitted at 1,000 s from
 * the same origin with one GPU, is then predicted at the geometric mean of the prior
 * (3,600 s) and the history (one run of 100 s), each with weight one:
 * sqrt(3600 x 100) = 600 s. a3, with two GPUs, has no history and gets the prior.
 * Without learning a2 too stays at the prior. */
Test(learn, the_history_of_an_origin_predicts_its_jobs)
{
    const char *jobs = HDR "a1,0,-,1,1,0,1,1,1,0,a,100,\n"
                           "a2,1000,-,1,1,0,1,1,1,0,a,50,\n"
                           "a3,1000,-,1,1,0,2,1,1,0,a,50,\n";
    const char *off[] = {"learn=false"};
    struct run on, no;
    run_start_pred(&on, one_node(4, "none"), NULL, 0, jobs, "fifo", "rf");
    run_start_pred(&no, one_node(4, "none"), off, 1, jobs, "fifo", "rf");
    cr_assert_float_eq(pred_run(&on, "a1"), 3600, EPS);
    cr_assert_float_eq(pred_run(&on, "a2"), 600, 1e-6);
    cr_assert_float_eq(pred_run(&on, "a3"), 3600, 1e-6);
    cr_assert_float_eq(pred_run(&no, "a2"), 3600, EPS);
    run_free(&on);
    run_free(&no);
}

/* Ten identical ResNet-50 jobs run one after another on one H100. The forest's step
 * time for them is off by some percent (the first job's error); the first completed
 * run measures the step exactly (it ran alone, with cores to spare), so with learning
 * every later prediction is the truth, and without it every prediction is the first's. */
Test(learn, a_measured_step_replaces_the_forests)
{
    char jobs[2048] = HDR;
    for (int i = 0; i < 10; i++)
        snprintf(jobs + strlen(jobs), sizeof jobs - strlen(jobs),
                 "r%d,0,resnet50,64,1,5,1,1,1,0,a,,\n", i);
    const char *off[] = {"learn=false"};
    struct run on, no;
    run_start_pred(&on, one_node(1, "h100"), NULL, 0, jobs, "fifo", "rf");
    run_start_pred(&no, one_node(1, "h100"), off, 1, jobs, "fifo", "rf");
    double truth = on.s->alone_run_s[run_job(&on, "r0")];
    double first = fabs(pred_run(&on, "r0") / truth - 1);
    cr_assert_gt(first, 0.01, "the forest is exact here (%g): the test proves nothing", first);
    for (int i = 1; i < 10; i++) {
        char id[16];
        snprintf(id, sizeof id, "r%d", i);
        cr_assert_float_eq(pred_run(&on, id), truth, 1e-6 * truth, "%s", id);
        cr_assert_float_eq(pred_run(&no, id), pred_run(&no, "r0"), EPS, "%s", id);
    }
    run_free(&on);
    run_free(&no);
}

/* With ResNet-50 left out of the forest's training (rf:unseen=resnet50), its first job
 * runs alone on the two-GPU node; j2 and j3 wait. With learning, j1's completion makes
 * the model known, and j2 and j3 start together when it ends. Without learning the
 * model stays unseen and each runs alone: j3 starts only when j2 has ended. */
Test(learn, an_unseen_model_runs_alone_until_its_first_run_ends)
{
    const char *jobs = HDR "j1,0,resnet50,64,1,5,1,1,1,0,a,,\n"
                           "j2,0,resnet50,64,1,5,1,1,1,0,a,,\n"
                           "j3,0,resnet50,64,1,5,1,1,1,0,a,,\n";
    const char *off[] = {"learn=false"};
    struct run on, no;
    run_start_pred(&on, one_node(2, "h100"), NULL, 0, jobs, "optimal", "rf:unseen=resnet50");
    run_start_pred(&no, one_node(2, "h100"), off, 1, jobs, "optimal", "rf:unseen=resnet50");
    cr_assert_float_eq(run_start_s(&on, "j1"), 0, EPS);
    cr_assert_float_eq(run_start_s(&on, "j2"), rt(&on, "j1")->end_s, EPS);
    cr_assert_float_eq(run_start_s(&on, "j3"), rt(&on, "j1")->end_s, EPS);
    cr_assert_float_eq(run_start_s(&no, "j2"), rt(&no, "j1")->end_s, EPS);
    cr_assert_float_eq(run_start_s(&no, "j3"), rt(&no, "j2")->end_s, EPS);
    run_free(&on);
    run_free(&no);
}

/* noisy:0 is the oracle exactly, for a job's own duration as for the catalogue. */
Test(learn, noisy_zero_sees_the_duration)
{
    struct run r;
    run_start_pred(&r, one_node(1, "none"), NULL, 0, HDR "j1,0,-,1,1,0,1,1,1,0,a,123,\n", "fifo",
                   "noisy:0");
    cr_assert_float_eq(pred_run(&r, "j1"), 123, EPS);
    run_free(&r);
}

/* The spec's unseen= names catalogue models; anything else is refused. */
Test(learn, unseen_names_catalogue_models)
{
    char err[CPN_ERR_LEN] = "";
    struct catalog *cat = NULL;
    struct predictor *p = NULL;
    cr_assert_eq(catalog_create(&cat, err, sizeof err), 0);
    cr_assert_eq(predictor_create(&p, "rf:margin=0.2:unseen=resnet50+bert_base", cat, 1, err,
                                  sizeof err),
                 0, "%s", err);
    cr_assert_not(predictor_knows(p, catalog_model_find(cat, "resnet50")));
    cr_assert_not(predictor_knows(p, catalog_model_find(cat, "bert_base")));
    cr_assert(predictor_knows(p, catalog_model_find(cat, "vgg16")));
    predictor_destroy(p);
    p = NULL;
    cr_assert_neq(predictor_create(&p, "rf:unseen=resnet5", cat, 1, err, sizeof err), 0);
    cr_assert(strstr(err, "'resnet5' is not a catalogue model"), "%s", err);
    cr_assert_neq(predictor_create(&p, "rf:depth=3", cat, 1, err, sizeof err), 0);
    cr_assert(strstr(err, "unknown option"), "%s", err);
    catalog_destroy(cat);
}

/* At a +100% margin the forest predicts the detector at batch 16 (54.6 GiB) at about
 * 86 GiB, more than the node's 80 GiB H100: a prediction that fits no GPU of the cluster
 * is distrusted, and the job runs alone on the largest GPUs instead of never being
 * placed. Its first run measures it; the second job, alike, then fits. */
Test(learn, a_prediction_that_fits_nowhere_runs_alone_on_the_largest_gpus)
{
    struct run r;
    run_start_pred(&r, one_node(2, "h100"), NULL, 0,
                   HDR "d1,0,fasterrcnn_resnet50_fpn,16,1,1,1,1,1,0,a,,\n"
                       "d2,0,fasterrcnn_resnet50_fpn,16,1,1,1,1,1,0,a,,\n",
                   "optimal", "rf:margin=1");
    struct view_estimate e;
    cr_assert_eq(rt(&r, "d1")->state, JS_DONE);
    cr_assert_eq(rt(&r, "d2")->state, JS_DONE);
    cr_assert_float_eq(run_start_s(&r, "d2"), rt(&r, "d1")->end_s, EPS, "d1 ran alone");
    cr_assert_eq(r.s->st.oom_events, 0);
    view_estimate(&r.s->view, run_job(&r, "d2"), 0, &e);
    cr_assert(e.known, "the completed run taught the controller the model");
    cr_assert_float_eq(e.mem_gib, r.s->rt[run_job(&r, "d1")].peak_gib, EPS);
    run_free(&r);
}

/* A run that shared its GPU teaches no run time. With metrics scraped every 600 s, fifo
 * sees the one H100 idle at time 0 and puts r1 and r2 both on it: each runs at about
 * half speed. r3, submitted long after, is predicted as if nothing had been learnt (its
 * prediction equals that of a run without learning); had r1 run alone, r3 would be
 * predicted exactly (a_measured_step_replaces_the_forests). */
Test(learn, a_run_that_shared_its_gpu_teaches_no_run_time)
{
    const char *jobs = HDR "r1,0,resnet50,64,1,5,1,1,1,0,a,,\n"
                           "r2,0,resnet50,64,1,5,1,1,1,0,a,,\n"
                           "r3,100000,resnet50,64,1,5,1,1,1,0,a,,\n";
    const char *off[] = {"learn=false"};
    struct run on, no;
    run_start_pred(&on, node_scraped(1, "h100", 600), NULL, 0, jobs, "fifo", "rf");
    run_start_pred(&no, node_scraped(1, "h100", 600), off, 1, jobs, "fifo", "rf");
    cr_assert_float_eq(run_start_s(&on, "r2"), run_start_s(&on, "r1"), EPS, "r1 and r2 share");
    cr_assert_gt(rt(&on, "r1")->end_s - run_start_s(&on, "r1"),
                 1.5 * on.s->alone_run_s[run_job(&on, "r1")], "sharing slowed r1");
    cr_assert_float_eq(pred_run(&on, "r3"), pred_run(&no, "r3"), EPS);
    cr_assert_gt(fabs(pred_run(&on, "r3") / on.s->alone_run_s[run_job(&on, "r3")] - 1), 0.01);
    run_free(&on);
    run_free(&no);
}

/* Which runs shared a GPU. default puts every job on the node's first GPU. a runs
 * alone from 0, b joins it at 100 and ends first, so a is alone again at the end: both
 * shared it. c, placed on the empty GPU long after, ran alone, though its GPU had been
 * shared before. */
Test(learn, a_run_alone_then_joined_then_alone_again_shared_its_gpu)
{
    const char *jobs = HDR "a,0,-,1,1,0,1,1,1,0,a,1000,\n"
                           "b,100,-,1,1,0,1,1,1,0,a,10,\n"
                           "c,50000,-,1,1,0,1,1,1,0,a,10,\n";
    struct run r;
    run_start_pred(&r, one_node(1, "none"), NULL, 0, jobs, "default", "oracle");
    cr_assert_lt(run_start_s(&r, "b"), rt(&r, "a")->end_s, "b joined a");
    cr_assert_lt(rt(&r, "b")->end_s, rt(&r, "a")->end_s, "a was alone again at its end");
    cr_assert_gt(run_start_s(&r, "c"), rt(&r, "a")->end_s, "c came after both");
    cr_assert_eq(rt(&r, "a")->state, JS_DONE);
    cr_assert_eq(rt(&r, "c")->state, JS_DONE);
    cr_assert(rt(&r, "a")->shared && rt(&r, "b")->shared);
    cr_assert(!rt(&r, "c")->shared);
    run_free(&r);
}

/* The learner's table on its own: a handle from learner_key names its key for the
 * learner's life, through the index's growth (3,000 keys double it from 256 slots
 * several times); adding by handle is adding by key; a key made with no observation,
 * like an absent one, reads as unknown; nothing reads until it is published; a log kind
 * reads its mean, a max kind its maximum. */
Test(learn, the_table_keeps_handles_through_growth)
{
    struct learner *l = learner_create();
    uint32_t first = learner_key(l, LEARN_STEP, 1, 2, 3, 4);
    cr_assert(learner_add_at(l, first, 1.0));
    for (uint32_t i = 0; i < 3000; i++)
        cr_assert(learner_add(l, LEARN_STEP_BGPUS, i % 7, i, 1, 0, 0.5 * i));
    cr_assert_eq(learner_key(l, LEARN_STEP, 1, 2, 3, 4), first);
    cr_assert(!learner_add(l, LEARN_STEP, 1, 2, 3, 4, 3.0));
    uint32_t mem = learner_key(l, LEARN_MEM, 1, 2, 0, 0);
    uint32_t empty = learner_key(l, LEARN_MEM_MODEL, 1, 0, 0, 0);
    cr_assert(learner_add_at(l, mem, 5.0));
    cr_assert(!learner_add_at(l, mem, 4.0));
    double x;
    uint32_t n;
    cr_assert(!learner_get(l, LEARN_STEP, 1, 2, 3, 4, &x, &n));
    learner_publish(l);
    cr_assert(learner_get(l, LEARN_STEP, 1, 2, 3, 4, &x, &n));
    cr_assert(x == 2.0 && n == 2);
    cr_assert(learner_get(l, LEARN_MEM, 1, 2, 0, 0, &x, &n));
    cr_assert(x == 5.0 && n == 2);
    for (uint32_t i = 0; i < 3000; i++) {
        cr_assert(learner_get(l, LEARN_STEP_BGPUS, i % 7, i, 1, 0, &x, &n));
        cr_assert(x == 0.5 * i && n == 1);
    }
    cr_assert(!learner_get(l, LEARN_MEM_MODEL, 1, 0, 0, 0, &x, &n));
    cr_assert(!learner_get(l, LEARN_STEP_MODEL, 1, 0, 0, 0, &x, &n));
    cr_assert(learner_add_at(l, empty, -1.0)); /* its first observation */
    cr_assert(!learner_add(l, LEARN_STEP_BGPUS, 0, 0, 1, 0, 1.0));
    cr_assert(learner_get(l, LEARN_STEP_BGPUS, 0, 0, 1, 0, &x, &n) && x == 0.0 && n == 1,
              "unpublished observations are not read");
    learner_destroy(l);
    learner_destroy(NULL);
}
