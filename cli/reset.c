/* The state a command keeps for its process, forgotten so that another command can run in the same one. */
#include "cli.h"
#include "gltf_args.h"
#include "outputs.h"

void cli_process_reset(void)
{
    cli_flags_reset();
    cli_outputs_reset();
    cli_gltf_args_reset();
}
