# pixels.sh -- pixel checks for the viewer tests, sourced by test_view_*.sh.
# Needs $probe (the view_probe program) and a fail() function.

# Palette colours the tests look for (mprof_scene_palette).
STALLED=ff0000 MATCH=ffee00 HIGHLIGHT=00c0ff

# colour_at PNG X Y: "R G B" (X and Y may have decimals: truncated).
colour_at() { "$probe" pixel "$1" "${2%.*}" "${3%.*}"; }

# is_colour PNG X Y RRGGBB [TOLERANCE]: the pixel is that colour, within
# TOLERANCE summed over the channels (antialiasing; default 60).
is_colour() {
  colour_at "$1" "$2" "$3" | awk -v hex="$4" -v tol="${5:-60}" '
    function h(s) { return (index("0123456789abcdef", substr(s, 1, 1)) - 1) * 16 + index("0123456789abcdef", substr(s, 2, 1)) - 1 }
    function d(a, b) { return a > b ? a - b : b - a }
    { exit !(d($1, h(substr(hex, 1, 2))) + d($2, h(substr(hex, 3, 2))) + d($3, h(substr(hex, 5, 2))) <= tol) }'
}

# is_colour_near PNG X0 X1 Y RRGGBB [TOLERANCE]: is_colour at some point of
# the row band Y-2..Y+2 between X0 and X1 (five points across): a short
# line's highlight may sit a pixel off where antialiasing or an arrow's
# end takes the middle.
is_colour_near() {
  local png=$1 x0=$2 x1=$3 y=$4 colour=$5 tol=${6:-60} x dy
  for x in $(( x0 + 2 )) $(( (3 * x0 + x1) / 4 )) $(( (x0 + x1) / 2 )) \
           $(( (x0 + 3 * x1) / 4 )) $(( x1 - 2 )); do
    for dy in 0 -1 1 -2 2; do
      is_colour "$png" $x $(( y + dy )) "$colour" "$tol" && return 0
    done
  done
  return 1
}

# is_empty PNG X Y: nothing drawn there but the background or a band: a
# light grey (lines are dark or coloured; running is teal).
is_empty() {
  colour_at "$1" "$2" "$3" | awk '{ exit !($1 == $2 && $2 == $3 && $1 > 170 && $1 < 245) }'
}

# is_red PNG X Y: red, maybe blended with black (a stalled thread's line).
is_red() { colour_at "$1" "$2" "$3" | awk '{ exit !($1 > 2 * $2 + 60 && $2 == $3) }'; }

# is_pale_red PNG X Y: red faded over a light background (not highlighted).
is_pale_red() { colour_at "$1" "$2" "$3" | awk '{ exit !($1 - $2 > 50 && $2 == $3 && $2 > 100) }'; }

# expect WHAT CHECK PNG X Y [...]: fail with WHAT unless the check holds.
expect() {
  local what=$1
  shift
  "$@" || fail "$what (pixel $(colour_at "$2" "$3" "$4") at $3,$4 of $2)"
}

# expect_not WHAT CHECK PNG X Y [...]: fail with WHAT if the check holds.
expect_not() {
  local what=$1
  shift
  "$@" && fail "$what (pixel $(colour_at "$2" "$3" "$4") at $3,$4 of $2)"
  return 0
}
