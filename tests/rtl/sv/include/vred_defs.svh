// Macros shared through an include folder (+incdir+).
`ifndef VRED_DEFS_SVH
`define VRED_DEFS_SVH
`define VRED_SMAX(a, b) (($signed(a) >= $signed(b)) ? (a) : (b))
`endif
