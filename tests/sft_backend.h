/* A test backend: the device-side control flow of a GPU backend (instances split into launches that fit,
 * counters summed over instances, angle statistics reduced per launch and merged in launch order, reports
 * only for single launches) run on the CPU, so that the tests check it against the CPU backend without a GPU.
 * Its "device" is a CPU workspace of the same methods. */
#ifndef SFT_BACKEND_H
#define SFT_BACKEND_H

#include "sf_internal.h"

extern const sfi_backend_i sft_backend_test;

/* Instances one launch holds in workspaces created from now on (default 3: a batch of 7 takes three launches). */
void sft_backend_set_launch(size_t instances);
/* Launches the workspace has run since it was created. */
size_t sft_backend_launches(const sf_workspace* ws);

#endif
