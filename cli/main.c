/* placeholder until the CLI lands */
#include "skinframe.h"
#include <stdio.h>
int main(void) { puts(sf_result_string(SF_OK)); return 0; }
