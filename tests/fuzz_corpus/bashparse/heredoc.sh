cat <<EOF | sh
$(rm x) `touch y`
EOF