// A package with a parameterised max function (a class-free idiom: a function per width
// through a parameterised struct would need a class, so units pass the width).
package vred_max_pkg;
  function automatic logic signed_ge(logic [63:0] a, logic [63:0] b, int unsigned width);
    logic [63:0] sa, sb;
    sa = a << (64 - width);
    sb = b << (64 - width);
    return $signed(sa) >= $signed(sb);
  endfunction
endpackage
