	"strings"
