vred_pkg.sv
sv_types_pkg.sv
sv_multifile_ok.sv
+incdir+include
