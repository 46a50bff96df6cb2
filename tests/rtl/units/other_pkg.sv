// A second package with a name of lane_pkg's: two file-scope imports of both in one
// compilation unit make word_t ambiguous; one unit per file keeps each import in its file.
package other_pkg;
  typedef logic [15:0] word_t;
endpackage
