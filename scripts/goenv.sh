# goenv.sh: sourced by the project's scripts before they build or test.
#
# GOEXPERIMENT=simd lets GoMLX's pure-Go backend use its AVX2/AVX-512 matrix
# kernels (about 6x faster LM steps on amd64; elsewhere it changes nothing).
# GODEBUG=cpu.fma=off keeps math.Exp fast in such binaries: with Go 1.26 and the
# simd experiment, math.Exp's FMA path is 100-300x slower (pkg/cli/simd.go has
# the details; the gasp binary sets it for itself, tests need it from here).
# Both are kept when already set.
export GOEXPERIMENT="${GOEXPERIMENT:-simd}"
case ",${GODEBUG:-}," in
*,cpu.fma=off,*) ;;
*) export GODEBUG="${GODEBUG:+$GODEBUG,}cpu.fma=off" ;;
esac
