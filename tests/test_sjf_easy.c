/* Scenario tests of sjf and easy that their indexes could get wrong: the queue kept in
 * shapes (jobs of one shape but different run times, ties in queue order, a shape that
 * failed at one scheduling point fitting at a later one) and the bitmap of nodes with
 * a free GPU (refreshed when an end is learnt). One node, ideal controller, run times
 * from duration_s; each answer is worked out in the comment above the test. */
#include <criterion/criterion.h>

#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-6

/* One GPU; a, b, c have one shape and arrive at 0, d (same shape) at 1. Shortest
 * first, ties in order of entry: b 0..100, c 100..200, d 200..300, a 300..600. */
Test(sjf_easy, sjf_orders_within_one_shape)
{
    struct run r;
    run_start(&r, one_node_cluster(1, 80, 0, "event"), NULL, 0,
              HDR "a,0,-,1,1,0,1,1,1,0,a,300,10\n"
                  "b,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "c,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "d,1,-,1,1,0,1,1,1,0,a,100,10\n",
              "sjf");
    cr_assert_float_eq(run_start_s(&r, "b"), 0, EPS);
    cr_assert_float_eq(run_start_s(&r, "c"), 100, EPS);
    cr_assert_float_eq(run_start_s(&r, "d"), 200, EPS);
    cr_assert_float_eq(run_start_s(&r, "a"), 300, EPS);
    run_free(&r);
}

/* Two GPUs. wide (2 GPUs, 10 s) is shortest and takes both at 0; s (1 GPU, 50 s) and
 * l (1 GPU, 100 s) fit nowhere then, and must both start at 10 when wide's end is
 * learnt and its node has free GPUs again. A shape that fails must not stop a shorter
 * or longer one: at 10, big (2 GPUs, 60 s, at 5) comes between s and l but, once s
 * took a GPU, fits nowhere; l still starts at 10, and big at 110 when l ends. */
Test(sjf_easy, sjf_retries_failed_shapes_after_an_end)
{
    struct run r;
    run_start(&r, one_node_cluster(2, 80, 0, "event"), NULL, 0,
              HDR "wide,0,-,1,1,0,2,1,1,0,a,10,10\n"
                  "s,0,-,1,1,0,1,1,1,0,a,50,10\n"
                  "l,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "big,5,-,1,1,0,2,1,1,0,a,60,10\n",
              "sjf");
    cr_assert_float_eq(run_start_s(&r, "wide"), 0, EPS);
    cr_assert_float_eq(run_start_s(&r, "s"), 10, EPS);
    cr_assert_float_eq(run_start_s(&r, "l"), 10, EPS);
    cr_assert_float_eq(run_start_s(&r, "big"), 110, EPS);
    run_free(&r);
}

/* Four GPUs. j0 (1 GPU, 20 s) and j1 (2 GPUs, 100 s) start at 0; the head j2 (4 GPUs,
 * at 1) waits for 100. j3 (2 GPUs, 10 s, at 2) fits no node then (one GPU free); j4
 * (1 GPU, 50 s, at 3, a different shape) is still backfilled at 3 (ends 53 <= 100).
 * At 20 j0's end frees one GPU, still too few for j3; at 53 j4's end frees a second
 * and j3's shape fits again: it starts at 53 (ends 63 <= 100). j2 runs 100..150. */
Test(sjf_easy, easy_failed_shape_neither_blocks_nor_sticks)
{
    struct run r;
    run_start(&r, one_node_cluster(4, 80, 0, "event"), NULL, 0,
              HDR "j0,0,-,1,1,0,1,1,1,0,a,20,10\n"
                  "j1,0,-,1,1,0,2,1,1,0,a,100,10\n"
                  "j2,1,-,1,1,0,4,1,1,0,a,50,10\n"
                  "j3,2,-,1,1,0,2,1,1,0,a,10,10\n"
                  "j4,3,-,1,1,0,1,1,1,0,a,50,10\n",
              "easy");
    cr_assert_float_eq(run_start_s(&r, "j4"), 3, EPS);
    cr_assert_float_eq(run_start_s(&r, "j3"), 53, EPS);
    cr_assert_float_eq(run_start_s(&r, "j2"), 100, EPS);
    run_free(&r);
}
