/* What engines and runtimes do by default to a skinned, morphed mesh (docs/engines.md cites each choice), and
 * the cost levels the methods fall into. */
#ifndef SF_CLI_ENGINES_H
#define SF_CLI_ENGINES_H

#include "cli.h"

/* Where a runtime gets a tangent when the file has no TANGENT attribute. */
typedef enum cli_engine_tangents {
    CLI_ENGINE_TANGENTS_MIKKTSPACE = 0, /* generated per vertex at import (MikkTSpace), then skinned */
    CLI_ENGINE_TANGENTS_DERIVATIVES     /* none per vertex: the fragment shader's screen-space derivatives
                                           (such primitives' tangents are not measured) */
} cli_engine_tangents;

typedef struct cli_engine {
    const char* name;        /* --engine NAME */
    const char* title;       /* for tables: "three.js r170" */
    sf_method normals;       /* how normals follow the bones */
    uint32_t max_influences; /* joints kept per vertex (largest weights, renormalised); 0 = all */
    size_t max_morph_targets; /* active morph targets (largest weights); 0 = all */
    sf_morph_directions morph_directions; /* which morph direction deltas it adds */
    cli_engine_tangents tangents;
} cli_engine;

size_t cli_engine_count(void);
const cli_engine* cli_engine_at(size_t i);
/* The engine called name, or NULL. */
const cli_engine* cli_engine_find(const char* name);
/* "three.js, babylon.js, ..." for errors and help. */
const char* cli_engine_names(void);

/* How much a method costs at run time, cheapest first: the rows of "best method per cost level". */
typedef enum cli_cost_level {
    CLI_COST_PER_VERTEX = 0, /* the vertex and its bones only */
    CLI_COST_GRADIENTS,      /* plus data precomputed once per mesh (the jacobian's gradients) */
    CLI_COST_GATHER,         /* every frame's neighbours (face pass + gather) */
    CLI_COST_LEVELS
} cli_cost_level;
cli_cost_level cli_method_cost(sf_method method);
const char* cli_cost_name(cli_cost_level level);

#endif
